import { TestStack } from '#testing';

/** Starts one stack for the whole end-to-end run; test files reach it through E2E_STACK. */
export default async function globalSetup(): Promise<void> {
  const stack = await TestStack.start({
    // The actions tests call a local HTTP server; events-recovery proves the refusal with it off.
    ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
    // Retention runs every second, so the 30-day test need not wait an hour.
    EVENTS_RETENTION_INTERVAL_MS: '1000',
  });
  (globalThis as { __E2E_STACK__?: TestStack }).__E2E_STACK__ = stack;
  process.env.E2E_STACK = JSON.stringify(stack.description);
}
