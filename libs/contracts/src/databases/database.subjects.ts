import type { Page } from '#common';

import { type AuditListReply, AuditListRequest } from '../audit/audit.messages.js';
import { type ExistingIds, IdsRequest } from '../agents/agent.dto.js';
import type { DeletedDto } from '../common/deleted.dto.js';
import { PageQueryDto } from '../common/page.dto.js';
import type { DatabaseOverview } from '../dashboard/overview.messages.js';
import { EmptyRequest, IdAndBodyOf, IdRequest } from '../messaging/common-requests.js';
import { returns, rpc, streamProtocol, systemRpc } from '../messaging/subject-catalog.js';
import { CreateDatabaseDto } from './create-database.dto.js';
import {
  type DatabaseMovesDto,
  DatabaseShardRequest,
  type DatabaseShardsDto,
} from './database-shards.messages.js';
import type { DatabaseDto } from './database.dto.js';
import type { QueryResponseDto } from './query-response.dto.js';
import { ServiceQueryRequestDto } from './service-query-request.dto.js';
import { UpdateDatabaseDto } from './update-database.dto.js';

export const DatabaseSubjects = {
  list: rpc('database.databases.list', PageQueryDto, {
    callers: ['gateway', 'agent'],
    reply: returns<Page<DatabaseDto>>(),
  }),
  create: rpc('database.databases.create', CreateDatabaseDto, {
    callers: ['gateway'],
    reply: returns<DatabaseDto>(),
  }),
  get: rpc('database.databases.get', IdRequest, {
    callers: ['gateway', 'agent'],
    reply: returns<DatabaseDto>(),
  }),
  update: rpc('database.databases.update', IdAndBodyOf(UpdateDatabaseDto), {
    callers: ['gateway'],
    reply: returns<DatabaseDto>(),
  }),
  delete: rpc('database.databases.delete', IdRequest, { callers: ['gateway'], reply: returns<DeletedDto>() }),
  /** Which of these databases exist in the caller's organization (an agent's grants). */
  existing: rpc('database.databases.existing', IdsRequest, {
    callers: ['agent'],
    reply: returns<ExistingIds>(),
  }),
  /**
   * The query route's batch for the runner's `database` step, except that params may also be
   * booleans. Request and reply must each fit in one NATS message: a batch whose answer would not is
   * rolled back and answered `result_too_large`. Wait up to `QUERY_REPLY_TIMEOUT_MS` for the answer.
   */
  query: rpc('database.databases.query', IdAndBodyOf(ServiceQueryRequestDto), {
    callers: ['runner', 'agent'],
    reply: returns<QueryResponseDto>(),
    working: true,
  }),
  /** The same request and answer in parts of any size (see `query-stream.protocol.ts`); the gateway's route. */
  queryStream: streamProtocol('database.databases.query-stream', { callers: ['gateway'] }),
  /**
   * The replicas' own subjects, `database.shard.<k>.<verb>`: only replica `k` subscribes to its
   * family, and only the database identity may use them. A replica forwards there a request for a
   * database another shard holds, and moves database files there (docs/databases.md, "Scaling out").
   */
  shards: streamProtocol('database.shard', { callers: ['database'] }),
  /** The operator's view of the replicas (`npm run admin -- databases shards list`). */
  adminShardsList: systemRpc('database.admin.shards.list', EmptyRequest, {
    callers: ['admin'],
    reply: returns<DatabaseShardsDto>(),
  }),
  /** Before a scale-down: the shard takes no new databases and its databases move to the others. */
  adminShardsDrain: systemRpc('database.admin.shards.drain', DatabaseShardRequest, {
    callers: ['admin'],
    reply: returns<DatabaseMovesDto>(),
  }),
  /** After a scale-up: every live replica takes new databases and the databases even out. */
  adminShardsRebalance: systemRpc('database.admin.shards.rebalance', EmptyRequest, {
    callers: ['admin'],
    reply: returns<DatabaseMovesDto>(),
  }),
  /** For billing: how many databases the organization holds. */
  overview: rpc('database.overview.get', EmptyRequest, {
    callers: ['gateway'],
    reply: returns<DatabaseOverview>(),
  }),
  /** A page of this service's audit entries for the gateway's `GET /api/v1/audit`, which merges them. */
  auditList: rpc('database.audit.list', AuditListRequest, {
    callers: ['gateway'],
    reply: returns<AuditListReply>(),
  }),
} as const;

/** The subject of replica `shard` for `verb` (`query`, `query-stream`, `create`, `move`…). */
export const shardSubject = (shard: number, verb: string): string =>
  `${DatabaseSubjects.shards.name}.${shard}.${verb}`;
