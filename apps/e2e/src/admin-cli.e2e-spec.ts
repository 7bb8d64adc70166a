import { adminCli, TestStack } from '#testing';

/**
 * The admin CLI just after a start: catalog may not listen yet. Its own stack, with catalog stopped
 * and started again under the test's control.
 */
describe('admin CLI', () => {
  let stack: TestStack;

  beforeAll(async () => {
    stack = await TestStack.start({}, { services: ['catalog'] });
    await stack.processes.get('catalog')?.stop();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses at once when nobody listens and it may not wait', async () => {
    const refused = await adminCli(['org', 'create', '--name', 'Too early'], {
      ...stack.env,
      ADMIN_WAIT_MS: '0',
    }).catch((error: { code?: number; stderr?: string }) => error);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringMatching(/No service is answering/) });
  });

  it('writes its log lines to stderr, so stdout holds nothing but its answer', async () => {
    // Without its password it warns that it connects anonymously, which this NATS then refuses.
    const anonymous = Object.fromEntries(
      Object.entries(stack.env).filter(([name]) => name !== 'NATS_ADMIN_PASSWORD'),
    );
    const refused = await adminCli(['org', 'create', '--name', 'Anonymous'], {
      ...anonymous,
      ADMIN_WAIT_MS: '0',
    }).catch((error: { code?: number; stdout?: string; stderr?: string }) => error);
    expect(refused).toMatchObject({
      code: 1,
      stdout: '',
      stderr: expect.stringContaining('NATS_ADMIN_PASSWORD is not set'),
    });
  });

  it('waits for catalog to listen, then carries the command out', async () => {
    const creating = adminCli<{ organizationId: string; apiKey: string }>(
      ['org', 'create', '--name', 'Just after start'],
      { ...stack.env, ADMIN_WAIT_MS: '60000' },
    );
    await stack.startService('catalog');
    const created = await creating;
    expect(created).toEqual({ organizationId: expect.any(String), apiKey: expect.any(String) });
  });
});
