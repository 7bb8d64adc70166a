import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import pg from 'pg';
import type { Logger } from 'pino';

import { RunJobs } from '../queue/run-jobs.service.js';
import { RunnerConfig } from '../runner.config.js';
import { RUNNER_LOGGER } from '../runner.tokens.js';
import { OrganizationBacklogs } from './organization-backlogs.service.js';

/** The channel `runner.pass_gate` notifies with `<runId>:<dispatch>` for each run it lets through. */
export const ADMITTED_CHANNEL = 'runner_admitted';
/** The channel `runner.run_left_queue` notifies with an organization's id as its backlog moves on. */
export const BACKLOGGED_CHANNEL = 'runner_backlogged';

const RECONNECT_MS = 1_000;
const NOTICE = /^([0-9a-f-]{36}):(\d+)$/;

/**
 * Publishes the job of each run a gate lets through (docs/flow-control.md). The gates are kept by
 * triggers in whatever transaction opens them, which cannot publish: each lets its runs through with
 * a new dispatch and a NOTIFY, and every runner listening publishes the job. The job's message id
 * (`run:<id>:<dispatch>`) makes the runners' publishes one job. A notice missed while this connection
 * was down leaves a `queued` run with a dispatch time and no job, which the sweeper publishes after
 * `RUNNER_REQUEUE_AFTER_MS`, as it does any lost job.
 *
 * The same connection hears which organizations' backlogs are draining, so every runner keeps its
 * slots for other organizations' new runs until a backlog is gone, not only the runner whose starts
 * were held.
 */
@Injectable()
export class AdmittedRuns implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private client?: pg.Client;
  private reconnect?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly jobs: RunJobs,
    private readonly config: RunnerConfig,
    private readonly backlogs: OrganizationBacklogs,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnect);
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.config.DATABASE_URL,
      application_name: 'runner-admissions',
    });
    const lost = (error: unknown) => {
      if (this.stopped || this.client !== client) return;
      this.logger.warn({ err: error }, 'listening for runs let through lost its connection; reconnecting');
      this.client = undefined;
      client.end().catch(() => undefined);
      this.reconnect = setTimeout(() => void this.listen(), RECONNECT_MS);
    };
    client.on('notification', (notice) => {
      if (notice.channel === BACKLOGGED_CHANNEL) {
        if (notice.payload) this.backlogs.saw(notice.payload);
      } else this.admitted(notice.payload);
    });
    client.on('error', lost);
    client.on('end', () => lost(new Error('connection ended')));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${ADMITTED_CHANNEL}; LISTEN ${BACKLOGGED_CHANNEL}`);
    } catch (error) {
      lost(error);
    }
  }

  private admitted(payload: string | undefined): void {
    const match = NOTICE.exec(payload ?? '');
    if (!match) return;
    void this.jobs.publishSoon({ runId: match[1] as string, dispatch: Number(match[2]) });
  }
}
