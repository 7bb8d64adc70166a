import {
  type AdminKeyCreate,
  type AdminOrgCreate,
  type AdminRetentionSet,
  type AdminRetentionShow,
  type AdminSetPlan,
  type AdminUserCreate,
  CatalogSubjects,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { RetentionService } from '../retention/retention.service.js';
import { AdminService } from './admin.service.js';

/** Operator commands: only the admin CLI's NATS identity may send them, never the gateway. */
@Controller()
export class AdminHandler {
  constructor(
    private readonly admin: AdminService,
    private readonly retention: RetentionService,
  ) {}

  @Handles(CatalogSubjects.adminOrgCreate)
  createOrganization(request: AdminOrgCreate) {
    return this.admin.createOrganization(request);
  }

  @Handles(CatalogSubjects.adminKeyCreate)
  createKey(request: AdminKeyCreate) {
    return this.admin.createKey(request);
  }

  @Handles(CatalogSubjects.adminOrgSetPlan)
  setPlan(request: AdminSetPlan) {
    return this.admin.setPlan(request);
  }

  @Handles(CatalogSubjects.adminUserCreate)
  createUser(request: AdminUserCreate) {
    return this.admin.createUser(request);
  }

  @Handles(CatalogSubjects.adminRetentionSet)
  setRetention(request: AdminRetentionSet) {
    return this.retention.set(request);
  }

  @Handles(CatalogSubjects.adminRetentionShow)
  showRetention(request: AdminRetentionShow) {
    return this.retention.show(request);
  }
}
