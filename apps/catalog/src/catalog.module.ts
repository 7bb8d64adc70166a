import { createLogger } from '#common';
import { ServiceWiringModule } from '#nats';
import { ServiceDatabaseModule } from '#persistence';
import { type DynamicModule, Module } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';

import { CatalogAuditHandler, catalogAuditRetention } from './audit/catalog-audit.js';
import { AdminHandler } from './admin/admin.handler.js';
import { AdminService } from './admin/admin.service.js';
import { AUTH_DB, authDatabase } from './auth/auth.database.js';
import { authSettings, createAuth, createAuthPool } from './auth/auth.factory.js';
import { AuthHandler } from './auth/auth.handler.js';
import { AuthRepository } from './auth/auth.repository.js';
import { AUTH, AUTH_POOL, AuthService } from './auth/auth.service.js';
import { InvitationMailer } from './auth/invitation-mailer.js';
import { BillingHandler } from './billing/billing.handler.js';
import { BillingService } from './billing/billing.service.js';
import { PlanRepository } from './billing/plan.repository.js';
import { PlanService } from './billing/plan.service.js';
import { UsageRepository } from './billing/usage.repository.js';
import { CatalogConfig } from './catalog.config.js';
import { catalogDataSource } from './catalog.database.js';
import { ProjectDeletion } from './projects/project-deletion.service.js';
import { ProjectRepository } from './projects/project.repository.js';
import { ApiKeyRepository } from './keys/api-key.repository.js';
import { ApiKeysHandler } from './keys/api-keys.handler.js';
import { ApiKeysService } from './keys/api-keys.service.js';
import { ProjectsHandler } from './projects/projects.handler.js';
import { ProjectsService } from './projects/projects.service.js';
import { RateLimitHandler } from './rate-limit/rate-limit.handler.js';
import { RateLimitRepository } from './rate-limit/rate-limit.repository.js';
import { RetentionHandler } from './retention/retention.handler.js';
import { RetentionRepository } from './retention/retention.repository.js';
import { RetentionService } from './retention/retention.service.js';
import { SkillRepository } from './skills/skill.repository.js';
import { SkillsHandler } from './skills/skills.handler.js';
import { SkillsService } from './skills/skills.service.js';

@Module({})
export class CatalogModule {
  static forRoot(config: CatalogConfig): DynamicModule {
    return {
      module: CatalogModule,
      imports: [
        ServiceDatabaseModule.forRoot({
          ...catalogDataSource(config.DATABASE_URL),
          poolSize: config.DATABASE_POOL_SIZE,
        }),
        ScheduleModule.forRoot(),
        ServiceWiringModule.forService({
          nats: config.natsEndpoint,
          // Catalog publishes events, and asks workflow to take over a deleted project's workflows.
          connection: { name: 'catalog-publisher', check: 'nats_publisher' },
        }),
      ],
      controllers: [
        CatalogAuditHandler,
        AuthHandler,
        AdminHandler,
        ProjectsHandler,
        SkillsHandler,
        ApiKeysHandler,
        BillingHandler,
        RateLimitHandler,
        RetentionHandler,
      ],
      providers: [
        catalogAuditRetention(config.AUDIT_RETENTION_DAYS),
        { provide: CatalogConfig, useValue: config },
        {
          provide: AUTH_POOL,
          useFactory: () => createAuthPool(config.DATABASE_URL, createLogger('catalog')),
        },
        { provide: AUTH_DB, inject: [AUTH_POOL], useFactory: authDatabase },
        InvitationMailer,
        {
          provide: AUTH,
          inject: [AUTH_POOL, InvitationMailer],
          useFactory: (pool: ReturnType<typeof createAuthPool>, mailer: InvitationMailer) =>
            createAuth(authSettings(config), pool, mailer),
        },
        AuthService,
        AuthRepository,
        AdminService,
        ApiKeysService,
        ApiKeyRepository,
        ProjectRepository,
        ProjectsService,
        ProjectDeletion,
        SkillRepository,
        SkillsService,
        PlanRepository,
        UsageRepository,
        PlanService,
        BillingService,
        RateLimitRepository,
        RetentionRepository,
        RetentionService,
      ],
    };
  }
}
