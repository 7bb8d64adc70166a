import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

import { NATS_IDENTITIES } from '#contracts';
import { generateNatsPassword, passwordVariableOf, renderAuthorization } from '#nats';

const USAGE = `Usage: npm run nats -- <command> [options]

  authorization [--prefix P]   print the nats-server authorization block (users and permissions)
                               rendered from the subject catalog; deploy/ holds it for prefix ''
  passwords                    print a fresh NATS_<IDENTITY>_PASSWORD line for every identity
  serve [--port 4223] [--dir data/nats]
                               run an authenticated nats-server with JetStream for development;
                               the passwords are kept in <dir>/credentials.env (made on first use)`;

class UsageError extends Error {}

const freshPasswords = (): string =>
  NATS_IDENTITIES.map((identity) => `${passwordVariableOf(identity)}=${generateNatsPassword()}`).join('\n') +
  '\n';

function readEnvFile(path: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

function serve(port: number, dir: string): Promise<number> {
  const credentialsFile = join(dir, 'credentials.env');
  mkdirSync(join(dir, 'jetstream'), { recursive: true });
  if (!existsSync(credentialsFile)) writeFileSync(credentialsFile, freshPasswords(), { mode: 0o600 });
  writeFileSync(join(dir, 'authorization.conf'), renderAuthorization(process.env.NATS_SUBJECT_PREFIX ?? ''));
  writeFileSync(
    join(dir, 'nats.conf'),
    `listen: 127.0.0.1:${port}\nmax_payload: 8MB\njetstream { store_dir: ${JSON.stringify(join(dir, 'jetstream'))} }\ninclude ./authorization.conf\n`,
  );
  console.error(
    `Authenticated NATS on nats://127.0.0.1:${port}. Start the apps against it with:\n` +
      `  set -a; . ${credentialsFile}; set +a; NATS_URL=nats://127.0.0.1:${port} npm start\n`,
  );
  const binary =
    ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find((path) => existsSync(path)) ?? 'nats-server';
  const child = spawn(binary, ['-c', join(dir, 'nats.conf')], {
    stdio: 'inherit',
    env: { ...process.env, ...readEnvFile(credentialsFile) },
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  return new Promise((done) => child.once('exit', (code) => done(code ?? 1)));
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      prefix: { type: 'string', default: '' },
      port: { type: 'string', default: '4223' },
      dir: { type: 'string', default: 'data/nats' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  switch (positionals.join(' ')) {
    case 'authorization':
      process.stdout.write(renderAuthorization(values.prefix));
      return 0;
    case 'passwords':
      process.stdout.write(freshPasswords());
      return 0;
    case 'serve': {
      const port = Number(values.port);
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        throw new UsageError('--port must be a port number');
      return serve(port, resolve(values.dir));
    }
    default:
      throw new UsageError(`Unknown command: ${positionals.join(' ') || '(none)'}`);
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
