import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

import { logToStderr } from '#common';

import {
  CatalogSubjects,
  DatabaseSubjects,
  MEMBER_ROLES,
  type MemberRole,
  PLAN_IDS,
  type PlanId,
  RETENTION_DAYS_MAX,
  RETENTION_DAYS_MIN,
  type RetentionChoice,
  type RpcEnvelope,
  EventsSubjects,
  INTEGRATION_IDS,
  type IntegrationId,
  isIntegrationId,
} from '#contracts';
import { connectNats, NoResponders, passwordVariableOf, RpcClient } from '#nats';

const USAGE = `Usage: npm run admin -- <command> [options]

  org create --name NAME [--plan free|pro|enterprise] [--json]   → {"organizationId", "apiKey"}
  org set-plan --org ORG_ID --plan PLAN [--json]
  key create --org ORG_ID [--name NAME] [--json]                 → {"apiKey"}
  user create --org ORG_ID --email E --password P --role owner|admin|member [--json] → {"userId"}
  connection create --org ORG_ID --integration http|webhook|slack|mcp --name NAME [--config JSON] [--json]
                                                                 → {"connectionId", "secret"?, "sendingSecret"?}
  connection rotate-sending-secret --org ORG_ID --connection ID [--json] → {"sendingSecret"}
  databases shards list [--json]                                 → {"shards": [{shard, state, live, databases, …}]}
  databases shards drain --shard K [--json]                      → {"moved", "failed", "shards"}
  databases shards rebalance [--json]                            → {"moved", "failed", "shards"}
  retention set (--plan PLAN | --org ORG_ID) [--step-payload-days N|keep|plan] [--diagram-days N|keep|plan] [--json]
  retention show [--org ORG_ID] [--json]                         → {"plans", "organizations", "more"}

The retention commands set how many days runs keep their step payloads (inputs, outputs) and their
diagrams' node properties in full before the runner trims them, for a plan or for one organization,
whose setting wins over its plan's; \`keep\` (the default) never trims, \`plan\` removes an
organization's own setting. Trimming cannot be undone: docs/retention.md.

The shard commands talk to the database service: drain before a scale-down (the shard's databases
move to the others), rebalance after a scale-up (databases even out over the live replicas); they
wait up to ADMIN_MOVE_TIMEOUT_MS (default 1800000) for the moves, one database at a time.

Talks to the catalog service over NATS (NATS_URL, default nats://127.0.0.1:4222) as the NATS user
admin, with the password in NATS_ADMIN_PASSWORD. When no catalog listens yet (just after a start), it
tries again for up to ADMIN_WAIT_MS (default 30000) milliseconds.`;

const RETRY_MS = 250;

/** Sends one operator command; the envelope comes back as catalog answered it. */
type Command = (rpc: RpcClient) => Promise<RpcEnvelope<object>>;

/**
 * Right after `npm start` answers, catalog may not listen yet. A command that reached nobody is sent
 * again until `waitMs` pass; one that timed out is not, since catalog may have carried it out.
 */
async function sendOnceListened(command: Command, rpc: RpcClient, waitMs: number) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      return await command(rpc);
    } catch (error) {
      if (!(error instanceof NoResponders) || Date.now() + RETRY_MS > deadline) throw error;
      await sleep(RETRY_MS);
    }
  }
}

function waitMsOf(value: string | undefined): number {
  const ms = Number(value ?? 30_000);
  if (!Number.isInteger(ms) || ms < 0)
    throw new UsageError('ADMIN_WAIT_MS must be a whole number of milliseconds');
  return ms;
}

function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

function plan(value: string | boolean | undefined, fallback?: PlanId): PlanId {
  const chosen = typeof value === 'string' ? value : fallback;
  const known = PLAN_IDS.find((id) => id === chosen);
  if (!known) throw new UsageError(`--plan must be one of ${PLAN_IDS.join(', ')}`);
  return known;
}

function toCommand(words: string[], values: Record<string, string | boolean | undefined>): Command {
  switch (words.join(' ')) {
    case 'org create': {
      const request = { name: required(values, 'name'), plan: plan(values.plan, 'free') };
      return (rpc) => rpc.requestEnvelope(CatalogSubjects.adminOrgCreate, null, request);
    }
    case 'org set-plan': {
      const request = { organizationId: required(values, 'org'), plan: plan(values.plan) };
      return (rpc) => rpc.requestEnvelope(CatalogSubjects.adminOrgSetPlan, null, request);
    }
    case 'key create': {
      const request = {
        organizationId: required(values, 'org'),
        ...(typeof values.name === 'string' ? { name: values.name } : {}),
      };
      return (rpc) => rpc.requestEnvelope(CatalogSubjects.adminKeyCreate, null, request);
    }
    case 'user create': {
      const request = {
        organizationId: required(values, 'org'),
        email: required(values, 'email'),
        password: required(values, 'password'),
        role: memberRole(required(values, 'role')),
      };
      return (rpc) => rpc.requestEnvelope(CatalogSubjects.adminUserCreate, null, request);
    }
    case 'connection create': {
      const request = {
        organizationId: required(values, 'org'),
        integrationId: integration(required(values, 'integration')),
        name: required(values, 'name'),
        ...(typeof values.config === 'string' ? { config: jsonObject(values.config, '--config') } : {}),
      };
      return (rpc) => rpc.requestEnvelope(EventsSubjects.adminConnectionCreate, null, request);
    }
    case 'connection rotate-sending-secret': {
      const request = {
        organizationId: required(values, 'org'),
        connectionId: required(values, 'connection'),
      };
      return (rpc) => rpc.requestEnvelope(EventsSubjects.adminConnectionRotateSendingSecret, null, request);
    }
    case 'retention set': {
      const scope = retentionScope(values);
      const request = {
        ...scope,
        ...retentionChoice(values, 'step-payload-days', 'stepPayloadDays', 'plan' in scope),
        ...retentionChoice(values, 'diagram-days', 'diagramDays', 'plan' in scope),
      };
      if (!('stepPayloadDays' in request) && !('diagramDays' in request)) {
        throw new UsageError('--step-payload-days, --diagram-days or both are required');
      }
      return (rpc) => rpc.requestEnvelope(CatalogSubjects.adminRetentionSet, null, request);
    }
    case 'retention show': {
      const request = typeof values.org === 'string' ? { organizationId: values.org } : {};
      return (rpc) => rpc.requestEnvelope(CatalogSubjects.adminRetentionShow, null, request);
    }
    case 'databases shards list':
      return (rpc) => rpc.requestEnvelope(DatabaseSubjects.adminShardsList, null, {});
    case 'databases shards drain': {
      const request = { shard: shardNumber(required(values, 'shard')) };
      return (rpc) => rpc.requestEnvelope(DatabaseSubjects.adminShardsDrain, null, request, moveTimeoutMs());
    }
    case 'databases shards rebalance':
      return (rpc) => rpc.requestEnvelope(DatabaseSubjects.adminShardsRebalance, null, {}, moveTimeoutMs());
    default:
      throw new UsageError(`Unknown command: ${words.join(' ') || '(none)'}`);
  }
}

function retentionScope(
  values: Record<string, string | boolean | undefined>,
): { plan: PlanId } | { organizationId: string } {
  const org = typeof values.org === 'string' && values.org !== '' ? values.org : undefined;
  if ((values.plan === undefined) === (org === undefined)) {
    throw new UsageError('retention set takes either --plan or --org');
  }
  return org === undefined ? { plan: plan(values.plan) } : { organizationId: org };
}

/** `N` (days), `keep`, or for an organization `plan`: its own setting removed. */
function retentionChoice(
  values: Record<string, string | boolean | undefined>,
  option: string,
  field: 'stepPayloadDays' | 'diagramDays',
  forPlan: boolean,
): Partial<Record<typeof field, RetentionChoice>> {
  const value = values[option];
  if (value === undefined) return {};
  if (value === 'keep' || (value === 'plan' && !forPlan)) return { [field]: value };
  const days = Number(value);
  if (
    typeof value !== 'string' ||
    !/^\d{1,6}$/.test(value) ||
    days < RETENTION_DAYS_MIN ||
    days > RETENTION_DAYS_MAX
  ) {
    const choices = forPlan ? 'keep' : 'keep or plan';
    throw new UsageError(
      `--${option} must be days (${RETENTION_DAYS_MIN} to ${RETENTION_DAYS_MAX}) or ${choices}`,
    );
  }
  return { [field]: days };
}

function shardNumber(value: string): number {
  const shard = Number(value);
  if (!/^\d{1,3}$/.test(value) || !Number.isInteger(shard))
    throw new UsageError('--shard must be a shard number');
  return shard;
}

function moveTimeoutMs(): number {
  const ms = Number(process.env.ADMIN_MOVE_TIMEOUT_MS ?? 1_800_000);
  if (!Number.isInteger(ms) || ms <= 0)
    throw new UsageError('ADMIN_MOVE_TIMEOUT_MS must be a whole number of milliseconds');
  return ms;
}

function integration(value: string): IntegrationId {
  if (!isIntegrationId(value))
    throw new UsageError(`--integration must be one of ${INTEGRATION_IDS.join(', ')}`);
  return value;
}

function jsonObject(text: string, option: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`${option} must be JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new UsageError(`${option} must be a JSON object`);
  }
  return parsed as Record<string, unknown>;
}

function memberRole(value: string): MemberRole {
  const role = MEMBER_ROLES.find((known) => known === value);
  if (!role) throw new UsageError(`--role must be one of ${MEMBER_ROLES.join(', ')}`);
  return role;
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
      integration: { type: 'string' },
      config: { type: 'string' },
      connection: { type: 'string' },
      shard: { type: 'string' },
      'step-payload-days': { type: 'string' },
      'diagram-days': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = toCommand(positionals, values);
  const waitMs = waitMsOf(process.env.ADMIN_WAIT_MS);
  const nats = await connectNats(
    {
      url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
      identity: 'admin',
      password: process.env[passwordVariableOf('admin')],
    },
    'admin-cli',
  );
  try {
    const reply = await sendOnceListened(command, new RpcClient(nats, 30_000), waitMs);
    if (!reply.ok) {
      console.error(values.json ? JSON.stringify({ error: reply.error }) : `Error: ${reply.error.message}`);
      return 1;
    }
    console.log(
      values.json
        ? JSON.stringify(reply.data)
        : Object.entries(reply.data)
            .map(
              ([key, value]) =>
                `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`,
            )
            .join('\n'),
    );
    return 0;
  } finally {
    await nats.close();
  }
}

// Stdout is the answer (one JSON document with --json); warnings on the way are for the operator.
logToStderr();
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
