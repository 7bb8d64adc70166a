/**
 * Polls `probe` until it answers something other than undefined, or fails after `timeoutMs`.
 * Tests wait for an observable outcome this way rather than sleeping for a guessed time.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  {
    timeoutMs = 15_000,
    intervalMs = 50,
    what = 'condition',
  }: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
