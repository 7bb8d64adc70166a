/** Shard numbers a deployment may use; a StatefulSet of a thousand database replicas is far off. */
export const MAX_SHARD = 999;

/** The StatefulSet names its pods `<statefulset>-<ordinal>`; ours is `database`. */
const POD_NAME = /^database-(\d{1,3})$/;

/**
 * The shard this replica serves: `DATABASE_SHARD` when set, else the ordinal of the StatefulSet pod
 * it runs in (Kubernetes sets HOSTNAME to the pod name, so pod `database-2` is shard 2 with no
 * per-pod configuration), else 0 (one replica, or every service in one process).
 */
export function shardOf(configured: number | undefined, hostname: string | undefined): number {
  if (configured !== undefined) return configured;
  const ordinal = POD_NAME.exec(hostname ?? '')?.[1];
  if (ordinal === undefined) return 0;
  const shard = Number(ordinal);
  return shard <= MAX_SHARD ? shard : 0;
}
