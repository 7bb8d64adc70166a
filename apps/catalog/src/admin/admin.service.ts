import { DomainException } from '#common';
import {
  type AdminKeyCreate,
  type AdminOrgCreate,
  type AdminOrgCreated,
  type AdminSetPlan,
  type AdminUserCreate,
} from '#contracts';
import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';

import { AuthService } from '../auth/auth.service.js';
import { PlanService } from '../billing/plan.service.js';

/** The installation's operator owns organizations made from the CLI until real members join. */
const OPERATOR_EMAIL = 'operator@flowmesh.local';

@Injectable()
export class AdminService {
  constructor(
    private readonly auth: AuthService,
    private readonly plans: PlanService,
  ) {}

  async createOrganization({ name, plan, complimentary }: AdminOrgCreate): Promise<AdminOrgCreated> {
    if (!name?.trim()) throw DomainException.invalidRequest([{ path: 'name', message: 'name is required' }]);
    const operatorId = await this.operatorUserId();
    const organizationId = await this.auth.createOrganization(name.trim(), operatorId);
    await this.plans.setPlan(organizationId, plan, complimentary ?? plan !== 'free');
    const apiKey = await this.auth.createKey(organizationId, 'admin-cli');
    return { organizationId, apiKey };
  }

  async createKey({ organizationId, name }: AdminKeyCreate): Promise<{ apiKey: string }> {
    await this.assertOrganization(organizationId);
    return { apiKey: await this.auth.createKey(organizationId, name ?? 'admin-cli') };
  }

  async setPlan({
    organizationId,
    plan,
    complimentary,
  }: AdminSetPlan): Promise<{ organizationId: string; plan: string }> {
    await this.assertOrganization(organizationId);
    await this.plans.setPlan(organizationId, plan, complimentary ?? plan !== 'free');
    return { organizationId, plan };
  }

  async createUser({
    organizationId,
    email,
    password,
    role,
    name,
  }: AdminUserCreate): Promise<{ userId: string }> {
    await this.assertOrganization(organizationId);
    const userId =
      (await this.auth.findUserIdByEmail(email)) ??
      (await this.auth.createUser(email, password, name ?? email.split('@')[0] ?? email));
    if ((await this.auth.memberRole(userId, organizationId)) === null) {
      await this.auth.addMember(organizationId, userId, role);
    }
    return { userId };
  }

  private async operatorUserId(): Promise<string> {
    const existing = await this.auth.findUserIdByEmail(OPERATOR_EMAIL);
    if (existing) return existing;
    try {
      // Nobody signs in as the operator: its password is random and never shown.
      return await this.auth.createUser(OPERATOR_EMAIL, randomBytes(24).toString('base64url'), 'Operator');
    } catch (error) {
      // Two first `org create`s at once: the other one made the operator.
      const raced = await this.auth.findUserIdByEmail(OPERATOR_EMAIL);
      if (raced) return raced;
      throw error;
    }
  }

  private async assertOrganization(organizationId: string): Promise<void> {
    if (!organizationId || !(await this.auth.organizationExists(organizationId))) {
      throw new DomainException('not_found', `No organization with id ${organizationId}.`);
    }
  }
}
