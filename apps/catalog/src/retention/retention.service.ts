import { DomainException } from '#common';
import {
  type AdminRetentionSet,
  type AdminRetentionShow,
  type OrganizationRetentionReport,
  PLAN_IDS,
  type PlanId,
  type PlanRetention,
  type RetentionChoice,
  type RetentionKind,
  type RetentionOrganizationsPage,
  type RetentionOrganizationsRequest,
  type RetentionReport,
} from '#contracts';
import { Injectable } from '@nestjs/common';

import { AuthService } from '../auth/auth.service.js';
import { PlanService } from '../billing/plan.service.js';
import { type RetentionChange, RetentionRepository } from './retention.repository.js';
import { effectiveDays, overridesOf, type ScopeSettings } from './retention.util.js';

/** The organizations with settings of their own that one `retention show` lists. */
const SHOWN_ORGANIZATIONS = 200;

/**
 * Step payload and diagram retention (docs/retention.md): set and shown by the operator, resolved
 * for the runner, which trims.
 */
@Injectable()
export class RetentionService {
  constructor(
    private readonly settings: RetentionRepository,
    private readonly plans: PlanService,
    private readonly auth: AuthService,
  ) {}

  async set(request: AdminRetentionSet): Promise<PlanRetention | OrganizationRetentionReport> {
    const { plan, organizationId } = request;
    if ((plan === undefined) === (organizationId === undefined)) {
      throw DomainException.invalidRequest([
        { path: 'plan', message: 'name either a plan or an organization, not both' },
      ]);
    }
    const choices: Array<[RetentionKind, RetentionChoice | undefined]> = [
      ['step_payload', request.stepPayloadDays],
      ['diagram', request.diagramDays],
    ];
    if (choices.every(([, choice]) => choice === undefined)) {
      throw DomainException.invalidRequest([
        { path: 'stepPayloadDays', message: 'give stepPayloadDays, diagramDays or both' },
      ]);
    }
    if (plan !== undefined) {
      if (choices.some(([, choice]) => choice === 'plan')) {
        throw DomainException.invalidRequest([
          { path: 'stepPayloadDays', message: '"plan" is for an organization: it follows its plan again' },
        ]);
      }
      // A plan with no setting keeps everything: `keep` simply removes it.
      await this.settings.write(
        'plan',
        plan,
        changesOf(choices, () => 'unset'),
      );
      return this.planRetention(plan);
    }
    const id = organizationId ?? '';
    await this.assertOrganization(id);
    // An organization's explicit keep is a row of its own, which wins over its plan's setting.
    await this.settings.write(
      'organization',
      id,
      changesOf(choices, () => null),
    );
    return this.organizationReport(id, await this.allPlans());
  }

  async show({ organizationId }: AdminRetentionShow): Promise<RetentionReport> {
    const plans = await this.allPlans();
    const planList = PLAN_IDS.map((plan) => planRetentionOf(plan, plans.get(plan) ?? {}));
    if (organizationId !== undefined) {
      await this.assertOrganization(organizationId);
      return {
        plans: planList,
        organizations: [await this.organizationReport(organizationId, plans)],
        more: false,
      };
    }
    const ids = await this.settings.organizationsWithSettings(SHOWN_ORGANIZATIONS + 1);
    const shown = ids.slice(0, SHOWN_ORGANIZATIONS);
    return {
      plans: planList,
      organizations: await Promise.all(shown.map((id) => this.organizationReport(id, plans))),
      more: ids.length > SHOWN_ORGANIZATIONS,
    };
  }

  async organizationsToTrim({
    after,
    limit,
  }: RetentionOrganizationsRequest): Promise<RetentionOrganizationsPage> {
    const organizations = await this.settings.organizationsToTrim(after, limit);
    return {
      organizations,
      next: organizations.length === limit ? (organizations.at(-1)?.organizationId ?? null) : null,
    };
  }

  private async planRetention(plan: PlanId): Promise<PlanRetention> {
    return planRetentionOf(plan, (await this.settings.settingsOf('plan', [plan])).get(plan) ?? {});
  }

  private allPlans(): Promise<Map<string, ScopeSettings>> {
    return this.settings.settingsOf('plan', PLAN_IDS);
  }

  private async organizationReport(
    organizationId: string,
    plans: Map<string, ScopeSettings>,
  ): Promise<OrganizationRetentionReport> {
    const [{ id: plan }, own] = await Promise.all([
      this.plans.planOf(organizationId),
      this.settings.settingsOf('organization', [organizationId]),
    ]);
    const organization = own.get(organizationId) ?? {};
    const planSettings = plans.get(plan) ?? {};
    return {
      organizationId,
      plan,
      overrides: overridesOf(organization),
      effective: {
        stepPayloadDays: effectiveDays(planSettings, organization, 'step_payload'),
        diagramDays: effectiveDays(planSettings, organization, 'diagram'),
      },
    };
  }

  private async assertOrganization(organizationId: string): Promise<void> {
    if (!organizationId || !(await this.auth.organizationExists(organizationId))) {
      throw new DomainException('not_found', `No organization with id ${organizationId}.`);
    }
  }
}

function planRetentionOf(plan: PlanId, settings: ScopeSettings): PlanRetention {
  return {
    plan,
    stepPayloadDays: settings.step_payload ?? null,
    diagramDays: settings.diagram ?? null,
  };
}

/** The operator's choices as changes of the table; what `keep` writes depends on the scope. */
function changesOf(
  choices: Array<[RetentionKind, RetentionChoice | undefined]>,
  keep: () => RetentionChange,
): Partial<Record<RetentionKind, RetentionChange>> {
  const changes: Partial<Record<RetentionKind, RetentionChange>> = {};
  for (const [kind, choice] of choices) {
    if (choice === undefined) continue;
    changes[kind] = choice === 'keep' ? keep() : choice === 'plan' ? 'unset' : choice;
  }
  return changes;
}
