import { parseArgs } from 'node:util';

import { CatalogSubjects, PLAN_IDS } from '#contracts';
import { connectNats, RpcClient } from '#nats';

const USAGE = `Usage: npm run admin -- <command> [options]

  org create --name NAME [--plan free|pro|enterprise] [--json]   → {"organizationId", "apiKey"}
  org set-plan --org ORG_ID --plan PLAN [--json]
  key create --org ORG_ID [--name NAME] [--json]                 → {"apiKey"}
  user create --org ORG_ID --email E --password P --role owner|admin|member [--json] → {"userId"}

Talks to the catalog service over NATS (NATS_URL, default nats://127.0.0.1:4222).`;

interface Command {
  subject: string;
  payload: Record<string, unknown>;
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

function toCommand(words: string[], values: Record<string, string | boolean | undefined>): Command {
  switch (words.join(' ')) {
    case 'org create': {
      const plan = typeof values.plan === 'string' ? values.plan : 'free';
      if (!(PLAN_IDS as readonly string[]).includes(plan))
        throw new UsageError(`--plan must be one of ${PLAN_IDS.join(', ')}`);
      return { subject: CatalogSubjects.adminOrgCreate, payload: { name: required(values, 'name'), plan } };
    }
    case 'org set-plan':
      return {
        subject: CatalogSubjects.adminOrgSetPlan,
        payload: { organizationId: required(values, 'org'), plan: required(values, 'plan') },
      };
    case 'key create':
      return {
        subject: CatalogSubjects.adminKeyCreate,
        payload: {
          organizationId: required(values, 'org'),
          ...(typeof values.name === 'string' ? { name: values.name } : {}),
        },
      };
    case 'user create':
      return {
        subject: CatalogSubjects.adminUserCreate,
        payload: {
          organizationId: required(values, 'org'),
          email: required(values, 'email'),
          password: required(values, 'password'),
          role: required(values, 'role'),
        },
      };
    default:
      throw new UsageError(`Unknown command: ${words.join(' ') || '(none)'}`);
  }
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      plan: { type: 'string' },
      org: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      role: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = toCommand(positionals, values);
  const nats = await connectNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'admin-cli');
  try {
    const reply = await new RpcClient(nats, 30_000).requestEnvelope<Record<string, unknown>>(
      command.subject,
      {
        principal: null,
        data: command.payload,
      },
    );
    if (!reply.ok) {
      console.error(values.json ? JSON.stringify({ error: reply.error }) : `Error: ${reply.error.message}`);
      return 1;
    }
    console.log(
      values.json
        ? JSON.stringify(reply.data)
        : Object.entries(reply.data)
            .map(([key, value]) => `${key}: ${String(value)}`)
            .join('\n'),
    );
    return 0;
  } finally {
    await nats.close();
  }
}

try {
  process.exitCode = await main();
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
