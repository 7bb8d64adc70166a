import { TestStack } from '#testing';

/** Starts one stack for the whole end-to-end run; test files reach it through E2E_STACK. */
export default async function globalSetup(): Promise<void> {
  const stack = await TestStack.start(
    {
      // The actions tests call a local HTTP server; events-recovery proves the refusal with it off.
      ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true',
      // Retention runs every second, so the 30-day test need not wait an hour.
      EVENTS_RETENTION_INTERVAL_MS: '1000',
      // The runner's purge of step payloads and diagrams too (docs/retention.md): it trims only
      // where an operator set a retention, which the tests do per organization.
      RETENTION_INTERVAL_MS: '1000',
      // A notification endpoint that was down gets its delivery within seconds of coming back.
      NOTIFICATIONS_RETRY_BASE_MS: '300',
      NOTIFICATIONS_RETRY_MAX_DELAY_MS: '1500',
      // Tests read the dashboard to see what a service holds; on a machine busy with every test file
      // at once, the 2 s budget could answer 503 for a part that was merely slow.
      DASHBOARD_TIMEOUT_MS: '8000',
    },
    // The suite runs against what `npm start` runs; the files that stop or kill a service start
    // stacks of separate processes of their own.
    { allInOne: true },
  );
  (globalThis as { __E2E_STACK__?: TestStack }).__E2E_STACK__ = stack;
  process.env.E2E_STACK = JSON.stringify(stack.description);
}
