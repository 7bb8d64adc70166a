import { DomainException } from '#common';
import type { Principal, RunNextWake } from '#contracts';
import { isId } from '#persistence';
import { Injectable } from '@nestjs/common';

import { NodeExecutorRegistry } from '../executors/node-executor.registry.js';
import { nextWakeOf } from './run-wake.util.js';
import { RunRepository } from './run.repository.js';

/** What a run waits for, for the gateway's waits (docs/runs.md, "Live runs"). */
@Injectable()
export class RunWaits {
  constructor(
    private readonly runs: RunRepository,
    private readonly executors: NodeExecutorRegistry,
  ) {}

  async nextWake(principal: Principal, id: string, now = new Date()): Promise<RunNextWake> {
    const found = isId(id) ? await this.runs.find(principal.organizationId, id) : null;
    if (!found) throw DomainException.notFound('run', id);
    return nextWakeOf(
      found,
      (type, state) => this.executors.get(type)?.awaitsDecision?.(state) ?? false,
      now,
    );
  }
}
