import { DomainException } from '#common';
import {
  type BulkRunsDto,
  EventsSubjects,
  type OperationDto,
  type Principal,
  REPLAY_CANDIDATES_PAGE_MAX,
  type ReplayEventsRequest,
} from '#contracts';
import { isId, newId } from '#persistence';
import { RpcClient } from '#nats';
import { Inject, Injectable } from '@nestjs/common';

import { runFilterOf } from '../runs/run-filter.js';
import { toOperationDto } from './operation.mapper.js';
import { type NewOperation, OperationRepository, TooManyTargets } from './operation.repository.js';

/** The most targets one operation may match (`OPERATIONS_MAX_TARGETS`). */
export const OPERATIONS_MAX_TARGETS = Symbol('OPERATIONS_MAX_TARGETS');

/** Accepting bulk operations and reading them; `OperationWorker` does the rest. */
@Injectable()
export class OperationsService {
  constructor(
    private readonly operations: OperationRepository,
    private readonly rpc: RpcClient,
    @Inject(OPERATIONS_MAX_TARGETS) private readonly maxTargets: number,
  ) {}

  /** Records the operation with every run the filter matches now; the workers act on them. */
  async bulkRuns(principal: Principal, { action, filter, reason }: BulkRunsDto): Promise<OperationDto> {
    const operation = this.newOperation(principal, action, null, {
      filter: { ...filter },
      ...(reason === undefined ? {} : { reason }),
    });
    try {
      return toOperationDto(
        await this.operations.createForRuns(operation, runFilterOf(filter), this.maxTargets),
        [],
      );
    } catch (error) {
      throw error instanceof TooManyTargets ? this.tooMany('filter', 'runs') : error;
    }
  }

  /** Asks the events service for the matching events, a page at a time, and records them. */
  async replayEvents(principal: Principal, { workflowId, body }: ReplayEventsRequest): Promise<OperationDto> {
    const ids: string[] = [];
    let beforeId: string | undefined;
    for (;;) {
      const { ids: page } = await this.rpc.request(EventsSubjects.eventsReplayCandidates, principal, {
        workflowId,
        ...body,
        ...(beforeId === undefined ? {} : { beforeId }),
        limit: REPLAY_CANDIDATES_PAGE_MAX,
      });
      ids.push(...page);
      if (ids.length > this.maxTargets) throw this.tooMany('body', 'events');
      if (page.length < REPLAY_CANDIDATES_PAGE_MAX) break;
      beforeId = page.at(-1);
    }
    const operation = this.newOperation(principal, 'replay', workflowId, { replay: { ...body } });
    return toOperationDto(await this.operations.createForTargets(operation, ids, this.maxTargets), []);
  }

  async get(principal: Principal, id: string): Promise<OperationDto> {
    const found = isId(id) ? await this.operations.find(principal.organizationId, id) : null;
    if (!found) throw DomainException.notFound('operation', id);
    return toOperationDto(found.operation, found.failures);
  }

  private newOperation(
    principal: Principal,
    action: NewOperation['action'],
    workflowId: string | null,
    params: NewOperation['params'],
  ): NewOperation {
    return { id: newId(), organizationId: principal.organizationId, action, principal, workflowId, params };
  }

  private tooMany(path: string, what: string): DomainException {
    return DomainException.invalidRequest([
      {
        path,
        message: `matches more than ${this.maxTargets} ${what}, the most one operation acts on; narrow it (a time range, a status)`,
      },
    ]);
  }
}
