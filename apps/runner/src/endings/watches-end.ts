import type { Diagram } from '#contracts';

/**
 * The `diagram.settings` keys that ask for something to happen when a run ends. A run is started with
 * `watch_end` when its diagram sets one of them, and only then is its end recorded in the outbox.
 */
export const END_WATCHING_SETTINGS = ['errorWorkflowId', 'notifications'] as const;

/** Whether a run of `diagram` must be reacted to when it ends. */
export function watchesEnd(diagram: Diagram | undefined): boolean {
  const settings = diagram?.settings as Record<string, unknown> | null | undefined;
  if (!settings || typeof settings !== 'object') return false;
  return END_WATCHING_SETTINGS.some((key) => {
    const value = settings[key];
    return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null && value !== '';
  });
}
