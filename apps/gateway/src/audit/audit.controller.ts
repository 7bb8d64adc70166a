import { DEFAULT_PAGE_SIZE, DomainException, type Page } from '#common';
import {
  AgentSubjects,
  AuditEntryDto,
  type AuditListReply,
  type AuditListRequest,
  AuditQueryDto,
  CatalogSubjects,
  DatabaseSubjects,
  EventsSubjects,
  PageOf,
  type Principal,
  RunnerSubjects,
  type RpcSubject,
  WorkflowSubjects,
} from '#contracts';
import { RpcClient } from '#nats';
import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { decodeAuditCursor, mergeAuditPages } from './audit-pages.js';

/** Every service that owns changes, hence an audit log: the route asks them all. */
const AUDIT_SUBJECTS: readonly RpcSubject<AuditListRequest, AuditListReply, Principal>[] = [
  CatalogSubjects.auditList,
  WorkflowSubjects.auditList,
  RunnerSubjects.auditList,
  AgentSubjects.auditList,
  DatabaseSubjects.auditList,
  EventsSubjects.auditList,
];

@ApiTags('audit')
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({
    summary: "List the organization's audit log",
    description:
      'Extension beyond the contract (docs/audit.md). Every change made by a member, a key or the service, newest first, in pages like the other lists, narrowed by `action` (exact, or a prefix ending in a dot: `workflow.`), `actorType`, `actorId`, `resourceType`, `resourceId`, `from` and `to`. For owners and admins, and organization keys (which act as admin); a member is answered 403 `forbidden`. Entries are kept `AUDIT_RETENTION_DAYS` (400 by default) and never hold secrets.',
  })
  @ApiOkResponse({ type: PageOf(AuditEntryDto) })
  @ApiErrors('invalid_request', 'service_unavailable')
  async list(
    @CurrentPrincipal() principal: Principal,
    @Query() query: AuditQueryDto,
  ): Promise<Page<AuditEntryDto>> {
    if (principal.role !== 'owner' && principal.role !== 'admin') {
      throw new DomainException('forbidden', "Only the organization's owners and admins read its audit log.");
    }
    const { cursor, limit = DEFAULT_PAGE_SIZE, ...filter } = query;
    const after = cursor === undefined ? undefined : decodeAuditCursor(cursor);
    const request: AuditListRequest = { filter, limit: limit + 1, ...(after ? { after } : {}) };
    // Every service's part or none: a log missing one service's entries would mislead.
    const pages = await Promise.all(
      AUDIT_SUBJECTS.map((subject) =>
        this.rpc.requestWhenServed(subject, principal, request, { patienceMs: 5_000, idempotent: true }),
      ),
    );
    return mergeAuditPages(
      pages.map((page) => page.data),
      limit,
    );
  }
}
