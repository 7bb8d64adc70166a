import { PeriodicTask } from '#common';
import {
  CatalogSubjects,
  type OrganizationRetention,
  RETENTION_KINDS,
  type RetentionKind,
  type RetentionOrganizationsRequest,
} from '#contracts';
import { RpcClient } from '#nats';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Logger } from 'pino';

import { retentionTrimmed } from '../metrics/retention.metrics.js';
import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { idFloorAt } from '../runs/run-filter.js';
import { RetentionRepository } from './retention.repository.js';

const DAY_MS = 86_400_000;

/** Organizations asked of catalog at once. */
const ORGANIZATIONS_PAGE = 500;

/** What a pass did for one kind: trimmed, and left for later. */
export interface RetentionTotals {
  /** Runs trimmed now. */
  runs: number;
  /** Step rows trimmed now (0 for diagrams). */
  steps: number;
  /** Runs the walk looked at. */
  scanned: number;
  /** Runs set aside because they (or their parent) are still live: trimmed by a later pass. */
  deferred: number;
}

export type RetentionPass = Record<RetentionKind, RetentionTotals>;

/**
 * Trims the step payloads and diagrams of runs older than their organization's retention
 * (docs/retention.md), every `RETENTION_INTERVAL_MS` on every runner. Catalog answers which
 * organizations have something to trim, with plan and organization settings resolved; the runner
 * then walks each one's runs in `RETENTION_BATCH`es, each batch one statement of its own. No
 * transaction or lock is open while catalog is asked, and two runners never trim the same batch:
 * each organization's walk is one row, taken with `SKIP LOCKED` by the statement that moves it.
 */
@Injectable()
export class RetentionPurge implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly task: PeriodicTask;
  private readonly batch: number;
  private stopping = false;

  constructor(
    private readonly retention: RetentionRepository,
    private readonly rpc: RpcClient,
    config: RunnerConfig,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {
    this.batch = config.RETENTION_BATCH;
    this.task = new PeriodicTask(
      config.RETENTION_INTERVAL_MS,
      async () => {
        await this.purge();
      },
      (error) => logger.warn({ err: error }, 'trimming runs past their retention failed; trying again'),
    );
  }

  onApplicationBootstrap(): void {
    this.task.start();
  }

  /** Before the database pool closes: a batch under way finishes, no new one starts. */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    await this.task.stop();
  }

  /** One pass over every organization with something to trim. */
  async purge(now = new Date()): Promise<RetentionPass> {
    const pass = noPass();
    let after: string | undefined;
    do {
      const request: RetentionOrganizationsRequest = {
        limit: ORGANIZATIONS_PAGE,
        ...(after ? { after } : {}),
      };
      const page = await this.rpc.request(CatalogSubjects.retentionOrganizations, null, request);
      for (const organization of page.organizations) {
        if (this.stopping) return pass;
        const done = await this.purgeOrganization(organization, now);
        for (const kind of RETENTION_KINDS) addTo(pass[kind], done[kind]);
      }
      after = page.next ?? undefined;
    } while (after !== undefined && !this.stopping);
    if (RETENTION_KINDS.some((kind) => pass[kind].runs > 0 || pass[kind].deferred > 0)) {
      this.logger.info(pass, 'trimmed runs past their retention');
    }
    return pass;
  }

  /** Trims what the organization's settings no longer keep, as of `now`. */
  async purgeOrganization(organization: OrganizationRetention, now: Date): Promise<RetentionPass> {
    const pass = noPass();
    for (const kind of RETENTION_KINDS) {
      const days = kind === 'step_payload' ? organization.stepPayloadDays : organization.diagramDays;
      if (days === null) continue;
      // A run's age is the time in its id (UUIDv7), made when it started: the cutoff is an id bound.
      const beforeId = idFloorAt(now.getTime() - days * DAY_MS);
      await this.walk(organization.organizationId, kind, beforeId, pass[kind]);
      await this.revisit(organization.organizationId, kind, beforeId, pass[kind]);
      retentionTrimmed(kind, pass[kind].runs, pass[kind].steps);
    }
    return pass;
  }

  /** Onwards from the watermark, batch after batch, until the cutoff. */
  private async walk(organizationId: string, kind: RetentionKind, beforeId: string, totals: RetentionTotals) {
    await this.retention.ensureProgress(organizationId, kind);
    for (;;) {
      const batch = await this.retention.trimNext(organizationId, kind, beforeId, this.batch);
      // Another runner walks this organization now; it carries on where this batch would have.
      if (batch.busy) return;
      totals.runs += batch.runs;
      totals.steps += batch.steps;
      totals.scanned += batch.scanned;
      if (batch.scanned < this.batch || this.stopping) return;
    }
  }

  /**
   * The runs the walk passed while they were live, the ones it just set aside included: each is
   * trimmed once it (and its parent) ended; `deferred` counts those still waiting.
   */
  private async revisit(
    organizationId: string,
    kind: RetentionKind,
    beforeId: string,
    totals: RetentionTotals,
  ) {
    let after: string | null = null;
    for (;;) {
      const batch = await this.retention.trimDeferred(organizationId, kind, beforeId, after, this.batch);
      totals.runs += batch.runs;
      totals.steps += batch.steps;
      totals.deferred += batch.deferred;
      if (batch.scanned < this.batch || batch.last === null || this.stopping) return;
      after = batch.last;
    }
  }
}

function noPass(): RetentionPass {
  const none = () => ({ runs: 0, steps: 0, scanned: 0, deferred: 0 });
  return { step_payload: none(), diagram: none() };
}

function addTo(totals: RetentionTotals, more: RetentionTotals): void {
  totals.runs += more.runs;
  totals.steps += more.steps;
  totals.scanned += more.scanned;
  totals.deferred += more.deferred;
}
