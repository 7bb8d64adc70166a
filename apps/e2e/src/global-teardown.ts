import type { TestStack } from '#testing';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __E2E_STACK__?: TestStack }).__E2E_STACK__?.stop();
}
