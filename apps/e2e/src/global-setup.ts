import { TestStack } from '#testing';

/** Starts one stack for the whole end-to-end run; test files reach it through E2E_STACK. */
export default async function globalSetup(): Promise<void> {
  const stack = await TestStack.start();
  (globalThis as { __E2E_STACK__?: TestStack }).__E2E_STACK__ = stack;
  process.env.E2E_STACK = JSON.stringify(stack.description);
}
