import type { MemberRole } from '../common/principal.js';
import type { PlanId } from '../billing/plan.js';

export interface AdminOrgCreate {
  name: string;
  plan: PlanId;
  complimentary?: boolean;
}
export interface AdminOrgCreated {
  organizationId: string;
  apiKey: string;
}
export interface AdminKeyCreate {
  organizationId: string;
  name?: string;
}
export interface AdminSetPlan {
  organizationId: string;
  plan: PlanId;
  complimentary?: boolean;
}
export interface AdminUserCreate {
  organizationId: string;
  email: string;
  password: string;
  role: MemberRole;
  name?: string;
}
