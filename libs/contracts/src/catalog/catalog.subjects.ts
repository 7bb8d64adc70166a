import type { Page } from '#common';

import { type AuditListReply, AuditListRequest } from '../audit/audit.messages.js';
import {
  AdminKeyCreate,
  type AdminOrgCreated,
  AdminOrgCreate,
  AdminSetPlan,
  AdminUserCreate,
} from '../admin/admin.messages.js';
import {
  AuthHttpRequest,
  type AuthHttpResponse,
  type CredentialsInvalidated,
  RateLimitConsume,
  type RateLimitTotals,
  ResolveCredential,
  type ResolvedCredential,
} from '../auth/auth.messages.js';
import { type ExistingIds, IdsRequest, type MountedSkill } from '../agents/agent.dto.js';
import type { CatalogBilling } from '../billing/billing.dto.js';
import {
  type ConsumeRunReply,
  ConsumeRunRequest,
  type ConsumeRunsReply,
  ConsumeRunsRequest,
  type PlanLimitsReply,
  RefundRunRequest,
} from '../billing/plan.messages.js';
import type { DeletedDto } from '../common/deleted.dto.js';
import { PageQueryDto } from '../common/page.dto.js';
import { type CatalogOverview, type NamesReply, NamesRequest } from '../dashboard/overview.messages.js';
import { EmptyRequest, IdAndBodyOf, IdRequest } from '../messaging/common-requests.js';
import type { ApiKeyDto } from '../keys/api-key.dto.js';
import { CreateApiKeyDto } from '../keys/create-api-key.dto.js';
import type { CreatedApiKeyDto } from '../keys/created-api-key.dto.js';
import { event, returns, rpc, systemRpc } from '../messaging/subject-catalog.js';
import { CreateProjectDto } from '../projects/create-project.dto.js';
import {
  AdminRetentionSet,
  AdminRetentionShow,
  type OrganizationRetentionReport,
  type PlanRetention,
  RetentionOrganizationsRequest,
  type RetentionOrganizationsPage,
  type RetentionReport,
} from '../retention/retention.messages.js';
import type { ProjectDto } from '../projects/project.dto.js';
import { UpdateProjectDto } from '../projects/update-project.dto.js';
import { CreateSkillDto } from '../skills/create-skill.dto.js';
import type { SkillDto } from '../skills/skill.dto.js';
import { UpdateSkillDto } from '../skills/update-skill.dto.js';

export const CatalogSubjects = {
  authResolve: systemRpc('catalog.auth.resolve', ResolveCredential, {
    callers: ['gateway'],
    reply: returns<ResolvedCredential>(),
  }),
  authHttp: systemRpc('catalog.auth.http', AuthHttpRequest, {
    callers: ['gateway'],
    reply: returns<AuthHttpResponse>(),
  }),
  /** Some cached credentials are stale (a sign-out, a key deleted): every gateway forgets those. */
  authInvalidated: event('catalog.auth.invalidated', {
    listeners: ['gateway'],
    payload: returns<CredentialsInvalidated>(),
  }),
  rateLimitConsume: systemRpc('catalog.ratelimit.consume', RateLimitConsume, {
    callers: ['gateway'],
    reply: returns<RateLimitTotals>(),
  }),

  projectsList: rpc('catalog.projects.list', PageQueryDto, {
    callers: ['gateway'],
    reply: returns<Page<ProjectDto>>(),
  }),
  projectsCreate: rpc('catalog.projects.create', CreateProjectDto, {
    callers: ['gateway'],
    reply: returns<ProjectDto>(),
  }),
  /** Also asked by workflow: a workflow is made only in a project that exists. */
  projectsGet: rpc('catalog.projects.get', IdRequest, {
    callers: ['gateway', 'workflow'],
    reply: returns<ProjectDto>(),
  }),
  projectsUpdate: rpc('catalog.projects.update', IdAndBodyOf(UpdateProjectDto), {
    callers: ['gateway'],
    reply: returns<ProjectDto>(),
  }),
  projectsDelete: rpc('catalog.projects.delete', IdRequest, {
    callers: ['gateway'],
    reply: returns<DeletedDto>(),
  }),

  skillsList: rpc('catalog.skills.list', PageQueryDto, {
    callers: ['gateway', 'agent'],
    reply: returns<Page<SkillDto>>(),
  }),
  skillsCreate: rpc('catalog.skills.create', CreateSkillDto, {
    callers: ['gateway'],
    reply: returns<SkillDto>(),
  }),
  skillsGet: rpc('catalog.skills.get', IdRequest, { callers: ['gateway'], reply: returns<SkillDto>() }),
  skillsUpdate: rpc('catalog.skills.update', IdAndBodyOf(UpdateSkillDto), {
    callers: ['gateway'],
    reply: returns<SkillDto>(),
  }),
  skillsDelete: rpc('catalog.skills.delete', IdRequest, {
    callers: ['gateway'],
    reply: returns<DeletedDto>(),
  }),
  /** Which of these are skills of the organization (not a member's own), for an agent's grants. */
  skillsExisting: rpc('catalog.skills.existing', IdsRequest, {
    callers: ['agent'],
    reply: returns<ExistingIds>(),
  }),
  /** The organization skills among these ids, whole: what an agent mounts. */
  skillsMount: rpc('catalog.skills.mount', IdsRequest, {
    callers: ['agent'],
    reply: returns<{ skills: MountedSkill[] }>(),
  }),

  /**
   * The organization's API keys, for the console's API keys page (browser-only `/app/keys`): owners
   * and admins of the organization, signed in; anyone else is forbidden.
   */
  keysList: rpc('catalog.keys.list', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<{ data: ApiKeyDto[] }>(),
  }),
  keysCreate: rpc('catalog.keys.create', CreateApiKeyDto, {
    callers: ['gateway'],
    reply: returns<CreatedApiKeyDto>(),
  }),
  keysDelete: rpc('catalog.keys.delete', IdRequest, {
    callers: ['gateway'],
    reply: returns<DeletedDto>(),
  }),

  billingGet: rpc('catalog.billing.get', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<CatalogBilling>(),
  }),
  /** Where to tell the organization's owners and admins that something waits for them. */
  adminEmails: rpc('catalog.organizations.admin-emails', EmptyRequest, {
    callers: ['agent'],
    reply: returns<{ emails: string[] }>(),
  }),
  /** The dashboard's project count and seven days of run activity, from counters. */
  overview: rpc('catalog.overview.get', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<CatalogOverview>(),
  }),
  /** Current names of these projects, for the dashboard. */
  projectNames: rpc('catalog.projects.names', NamesRequest, {
    callers: ['gateway'],
    reply: returns<NamesReply>(),
  }),
  /**
   * The organization's plan limits, for a service that counts what it holds itself (databases,
   * agents, app subscriptions): it asks first, then counts and inserts under its own lock, so no
   * lock waits on this request.
   */
  planLimits: rpc('catalog.plan.limits', EmptyRequest, {
    callers: ['database', 'events', 'agent'],
    reply: returns<PlanLimitsReply>(),
  }),
  /** Counts one run against the monthly quota, or refuses it with plan_limit_reached. */
  usageConsumeRun: rpc('catalog.usage.consume-run', ConsumeRunRequest, {
    callers: ['runner'],
    reply: returns<ConsumeRunReply>(),
  }),
  /** Counts many runs at once (`ConsumeRunsRequest`): those past the limit are refused, not counted. */
  usageConsumeRuns: rpc('catalog.usage.consume-runs', ConsumeRunsRequest, {
    callers: ['runner'],
    reply: returns<ConsumeRunsReply>(),
  }),
  /**
   * Takes back a count for a run whose start failed after it was counted (the runner counts while it
   * asks workflow for the target, not after). Idempotent: a run id not counted refunds nothing.
   */
  usageRefundRun: rpc('catalog.usage.refund-run', RefundRunRequest, {
    callers: ['runner'],
    reply: returns<{ refunded: boolean }>(),
  }),

  /** Operator commands: only the admin CLI's NATS identity may send them. */
  adminOrgCreate: systemRpc('catalog.admin.org.create', AdminOrgCreate, {
    callers: ['admin'],
    reply: returns<AdminOrgCreated>(),
  }),
  adminOrgSetPlan: systemRpc('catalog.admin.org.set-plan', AdminSetPlan, {
    callers: ['admin'],
    reply: returns<{ organizationId: string; plan: string }>(),
  }),
  adminKeyCreate: systemRpc('catalog.admin.key.create', AdminKeyCreate, {
    callers: ['admin'],
    reply: returns<{ apiKey: string }>(),
  }),
  adminUserCreate: systemRpc('catalog.admin.user.create', AdminUserCreate, {
    callers: ['admin'],
    reply: returns<{ userId: string }>(),
  }),
  /**
   * Step payload and diagram retention (docs/retention.md): the operator sets it per plan or per
   * organization; the runner asks which organizations have something to trim, their plan's setting
   * and their own already resolved, a page at a time.
   */
  adminRetentionSet: systemRpc('catalog.admin.retention.set', AdminRetentionSet, {
    callers: ['admin'],
    reply: returns<PlanRetention | OrganizationRetentionReport>(),
  }),
  adminRetentionShow: systemRpc('catalog.admin.retention.show', AdminRetentionShow, {
    callers: ['admin'],
    reply: returns<RetentionReport>(),
  }),
  retentionOrganizations: systemRpc('catalog.retention.organizations', RetentionOrganizationsRequest, {
    callers: ['runner'],
    reply: returns<RetentionOrganizationsPage>(),
  }),
  /** A page of this service's audit entries for the gateway's `GET /api/v1/audit`, which merges them. */
  auditList: rpc('catalog.audit.list', AuditListRequest, {
    callers: ['gateway'],
    reply: returns<AuditListReply>(),
  }),
} as const;
