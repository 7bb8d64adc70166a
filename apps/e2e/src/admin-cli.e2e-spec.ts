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
