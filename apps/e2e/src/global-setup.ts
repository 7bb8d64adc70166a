import { TestStack } from '#testing';

/** Starts one stack for the whole end-to-end run; test files reach it through E2E_STACK. */
export default async function globalSetup(): Promise<void> {
  // The action tests call a real HTTP server on this machine; the refusal is proven by a stack of its own.
  const stack = await TestStack.start({ ACTIONS_ALLOW_PRIVATE_NETWORKS: 'true' });
  (globalThis as { __E2E_STACK__?: TestStack }).__E2E_STACK__ = stack;
  process.env.E2E_STACK = JSON.stringify(stack.description);
}
