import {
  type AdminKeyCreate,
  type AdminOrgCreate,
  type AdminSetPlan,
  type AdminUserCreate,
  CatalogSubjects,
} from '#contracts';
import { RpcData } from '#nats';
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';

import { AdminService } from './admin.service.js';

/** Operator commands: reachable on NATS only, never through the gateway. */
@Controller()
export class AdminHandler {
  constructor(private readonly admin: AdminService) {}

  @MessagePattern(CatalogSubjects.adminOrgCreate)
  createOrganization(@RpcData('data') request: AdminOrgCreate) {
    return this.admin.createOrganization(request);
  }

  @MessagePattern(CatalogSubjects.adminKeyCreate)
  createKey(@RpcData('data') request: AdminKeyCreate) {
    return this.admin.createKey(request);
  }

  @MessagePattern(CatalogSubjects.adminOrgSetPlan)
  setPlan(@RpcData('data') request: AdminSetPlan) {
    return this.admin.setPlan(request);
  }

  @MessagePattern(CatalogSubjects.adminUserCreate)
  createUser(@RpcData('data') request: AdminUserCreate) {
    return this.admin.createUser(request);
  }
}
