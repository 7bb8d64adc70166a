/**
 * Every NATS subject and stream name. A prefix (NATS_SUBJECT_PREFIX) lets a test run or a second
 * environment share one NATS server without its messages reaching anyone else's services.
 * Decorators read these at import time, so the prefix comes from the environment, not from DI.
 */
const prefix = process.env.NATS_SUBJECT_PREFIX ?? '';

export const subject = (name: string): string => `${prefix}${name}`;

/** JetStream stream names may not contain dots, so the prefix is folded into a name-safe form. */
export const streamName = (name: string): string => `${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}${name}`;

export const QueueGroups = {
  catalog: subject('catalog'),
  workflow: subject('workflow'),
  runner: subject('runner'),
  database: subject('database'),
} as const;

export const CatalogSubjects = {
  authResolve: subject('catalog.auth.resolve'),
  authHttp: subject('catalog.auth.http'),
  authInvalidated: subject('catalog.auth.invalidated'),
  rateLimitConsume: subject('catalog.ratelimit.consume'),
  projectsList: subject('catalog.projects.list'),
  projectsCreate: subject('catalog.projects.create'),
  projectsGet: subject('catalog.projects.get'),
  projectsUpdate: subject('catalog.projects.update'),
  projectsDelete: subject('catalog.projects.delete'),
  skillsList: subject('catalog.skills.list'),
  skillsCreate: subject('catalog.skills.create'),
  skillsGet: subject('catalog.skills.get'),
  skillsUpdate: subject('catalog.skills.update'),
  skillsDelete: subject('catalog.skills.delete'),
  billingGet: subject('catalog.billing.get'),
  /** Checks a plan limit for another service: `{resource, current}` answers ok or plan_limit_reached. */
  planCheck: subject('catalog.plan.check'),
  /** Counts one run against the monthly quota, or refuses it with plan_limit_reached. */
  usageConsumeRun: subject('catalog.usage.consume-run'),
  adminOrgCreate: subject('catalog.admin.org.create'),
  adminOrgSetPlan: subject('catalog.admin.org.set-plan'),
  adminKeyCreate: subject('catalog.admin.key.create'),
  adminUserCreate: subject('catalog.admin.user.create'),
} as const;
