import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

import { ApiClient, appEntry, runningStack, startExtraGateway, statusOf, WORKSPACE_ROOT } from '#testing';

const run = promisify(execFile);
const stack = runningStack();

/** What an app answers when started with `env` alone: its exit code and everything it wrote. */
async function startOnly(
  app: string,
  env: Record<string, string>,
): Promise<{ code: number; output: string }> {
  try {
    await run(process.execPath, [appEntry(app)], {
      cwd: WORKSPACE_ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
      timeout: 30_000,
    });
    return { code: 0, output: '' };
  } catch (error) {
    const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
    return { code: code ?? -1, output: `${stdout ?? ''}${stderr ?? ''}` };
  }
}

describe('with NODE_ENV=production', () => {
  const production = { NODE_ENV: 'production' };

  it('refuses to start catalog with the built-in or a placeholder AUTH_SECRET, naming what to set', async () => {
    const [builtIn, placeholder] = await Promise.all([
      startOnly('catalog', production),
      // The example Secret's value of earlier releases: long enough, and public.
      startOnly('catalog', {
        ...production,
        AUTH_SECRET: 'change-me-to-at-least-32-random-characters',
        NATS_CATALOG_PASSWORD: 'aCatalogPassword1234',
      }),
    ]);
    expect(builtIn.code).not.toBe(0);
    expect(builtIn.output).toContain('set AUTH_SECRET');
    expect(builtIn.output).toContain('set NATS_CATALOG_PASSWORD');
    expect(placeholder.code).not.toBe(0);
    expect(placeholder.output).toContain('set AUTH_SECRET');
    expect(placeholder.output).not.toContain('NATS_CATALOG_PASSWORD');
  });

  it('refuses to start events without its own connections key', async () => {
    const [unset, known] = await Promise.all([
      startOnly('events', { ...production, NATS_EVENTS_PASSWORD: 'anEventsPassword1234' }),
      // The development overlay's key, public in deploy/.
      startOnly('events', {
        ...production,
        NATS_EVENTS_PASSWORD: 'anEventsPassword1234',
        CONNECTIONS_ENCRYPTION_KEY: Buffer.from('flowmesh-development-key-32bytes').toString('hex'),
      }),
    ]);
    expect(unset.code).not.toBe(0);
    expect(unset.output).toContain('set CONNECTIONS_ENCRYPTION_KEY');
    expect(known.output).toContain('set CONNECTIONS_ENCRYPTION_KEY');
  });

  it('refuses to start any app that would connect to NATS anonymously', async () => {
    const apps = ['gateway', 'runner', 'workflow', 'database', 'agent'];
    const answers = await Promise.all(apps.map((app) => startOnly(app, production)));
    expect(answers.map(({ code }, index) => [apps[index], code === 0 ? 'started' : 'refused'])).toEqual(
      apps.map((app) => [app, 'refused']),
    );
    answers.forEach(({ output }, index) =>
      expect(output).toContain(`set NATS_${apps[index]!.toUpperCase()}_PASSWORD`),
    );
  });

  it('starts with settings of its own', async () => {
    const gateway = await startExtraGateway(stack, 'gateway-production', production);
    try {
      expect(await statusOf(new ApiClient(gateway.baseUrl).GET('/api/health'))).toBe(200);
    } finally {
      await gateway.process.stop();
    }
  });
});
