import type { StorageBudget } from '../engine/batch-runner.js';

/**
 * The room one database has under the plan's two storage limits: its own (`databaseLimit`), and the
 * organization's (`organizationLimit`) less what its other databases hold. The answer names the
 * limit that leaves less room, so a refusal says which one was reached.
 */
export function storageBudget(
  databaseLimit: number,
  organizationLimit: number,
  othersBytes: number,
): StorageBudget {
  const organizationRoom = Math.max(0, organizationLimit - othersBytes);
  return organizationRoom < databaseLimit
    ? { roomBytes: organizationRoom, limit: organizationLimit, scope: 'organization' }
    : { roomBytes: databaseLimit, limit: databaseLimit, scope: 'database' };
}
