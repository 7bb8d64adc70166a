export const PLAN_IDS = ['free', 'pro', 'enterprise'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export const PLAN_RESOURCES = [
  'projects',
  'databases',
  'agents',
  'subscriptions',
  'runs',
  'storage',
  'databaseStorage',
] as const;
export type PlanResource = (typeof PLAN_RESOURCES)[number];

export interface Plan {
  id: PlanId;
  label: string;
  /**
   * `runs` is per calendar month (UTC); the others are totals at any time. `storage` is the bytes all
   * of an organization's databases may hold together, `databaseStorage` the bytes each may hold
   * (docs/databases.md, "Storage").
   */
  limits: Record<PlanResource, number>;
  /**
   * The organization's weight in the runs queue: it may have `RUNNER_ORGANIZATION_SHARE` times this
   * many runs waiting there before its next runs are held (docs/flow-control.md).
   */
  queueShare: number;
}

const MiB = 2 ** 20;
const GiB = 2 ** 30;

export const PLANS: Record<PlanId, Plan> = {
  free: {
    id: 'free',
    label: 'Free',
    limits: {
      projects: 3,
      databases: 2,
      agents: 3,
      subscriptions: 5,
      runs: 1_000,
      storage: 150 * MiB,
      databaseStorage: 100 * MiB,
    },
    queueShare: 1,
  },
  pro: {
    id: 'pro',
    label: 'Pro',
    limits: {
      projects: 50,
      databases: 25,
      agents: 50,
      subscriptions: 200,
      runs: 100_000,
      storage: 20 * GiB,
      databaseStorage: 5 * GiB,
    },
    queueShare: 2,
  },
  enterprise: {
    id: 'enterprise',
    label: 'Enterprise',
    limits: {
      projects: 10_000,
      databases: 1_000,
      agents: 10_000,
      subscriptions: 10_000,
      runs: 10_000_000,
      storage: 1024 * GiB,
      databaseStorage: 100 * GiB,
    },
    queueShare: 4,
  },
};
