import { DomainException } from '#common';
import {
  type CancelRunRequest,
  type IdRequest,
  type ListChildRunsRequest,
  type ListRunsRequest,
  type Principal,
  type RerunRunRequest,
  RunnerSubjects,
  type SearchRunsRequest,
  type StartRunRequest,
  type StartRunsReply,
  type StartRunsRequest,
  type TerminateRunsRequest,
  type WakeStepRequest,
  type WorkflowRunDto,
} from '#contracts';
import { Handles } from '#nats';
import { Controller, Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { runAnswerBoundBytes } from '../engine/run-limits.util.js';
import { RunControlService } from '../control/run-control.service.js';
import { RunnerConfig } from '../runner.config.js';
import { NATS_CONNECTION, RUNNER_LOGGER } from '../runner.tokens.js';
import { RunStarter } from '../start/run-starter.service.js';
import { ANSWER_HEADROOM_BYTES, fitRunAnswer } from './run-answer.util.js';
import { RunsService } from './runs.service.js';

/** NATS' own default, for a connection that has not said what its server takes. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

@Controller()
export class RunsHandler implements OnApplicationBootstrap {
  constructor(
    private readonly starter: RunStarter,
    private readonly runs: RunsService,
    private readonly control: RunControlService,
    private readonly config: RunnerConfig,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(RUNNER_LOGGER) private readonly logger: Logger,
  ) {}

  /** Says so at start when the largest run the limits allow would not come back whole. */
  onApplicationBootstrap(): void {
    const bound = runAnswerBoundBytes(this.config.runLimits);
    if (bound > this.answerMaxBytes()) {
      this.logger.warn(
        { largestRunBytes: bound, maxPayload: this.nats.info?.max_payload },
        'NATS max_payload is below the largest run answer these limits allow (8 MB as deploy/ sets it): such runs are answered with their longest texts cut',
      );
    }
  }

  @Handles(RunnerSubjects.runsStart)
  async start(request: StartRunRequest, principal: Principal) {
    const started = await this.starter.start(principal, request);
    return { ...started, run: this.fit(started.run) };
  }

  @Handles(RunnerSubjects.runsStartMany)
  async startMany({ starts }: StartRunsRequest, principal: Principal): Promise<StartRunsReply> {
    return { results: await this.starter.startMany(principal, starts) };
  }

  @Handles(RunnerSubjects.runsList)
  list({ workflowId, query }: ListRunsRequest, principal: Principal) {
    return this.runs.list(principal, workflowId, query);
  }

  @Handles(RunnerSubjects.runsSearch)
  search({ query }: SearchRunsRequest, principal: Principal) {
    return this.runs.searchOrganization(principal, query);
  }

  @Handles(RunnerSubjects.runsChildren)
  children({ id, query }: ListChildRunsRequest, principal: Principal) {
    return this.runs.childrenOf(principal, id, query);
  }

  @Handles(RunnerSubjects.runsGet)
  async get({ id }: IdRequest, principal: Principal) {
    return this.fit(await this.runs.get(principal, id));
  }

  @Handles(RunnerSubjects.overview)
  overview(_request: object, principal: Principal) {
    return this.runs.overview(principal);
  }

  @Handles(RunnerSubjects.runsWake)
  wake({ runId, nodeId }: WakeStepRequest, principal: Principal) {
    return this.runs.wake(principal, runId, nodeId);
  }

  @Handles(RunnerSubjects.runsCancel)
  async cancel({ id, body }: CancelRunRequest, principal: Principal) {
    return this.fit(await this.control.cancel(principal, id, body));
  }

  @Handles(RunnerSubjects.runsPause)
  async pause({ id }: IdRequest, principal: Principal) {
    return this.fit(await this.control.pause(principal, id));
  }

  @Handles(RunnerSubjects.runsResume)
  async resume({ id }: IdRequest, principal: Principal) {
    return this.fit(await this.control.resume(principal, id));
  }

  @Handles(RunnerSubjects.runsRerun)
  async rerun({ id, body }: RerunRunRequest, principal: Principal) {
    return this.fit(await this.control.rerun(principal, id, body));
  }

  @Handles(RunnerSubjects.runsTerminateForWorkflows)
  terminateForWorkflows({ workflowIds }: TerminateRunsRequest, principal: Principal) {
    return this.runs.terminateForWorkflows(principal, workflowIds);
  }

  @Handles(RunnerSubjects.runsTerminateScheduled)
  terminateScheduled({ workflowIds }: TerminateRunsRequest, principal: Principal) {
    return this.runs.terminateScheduled(principal, workflowIds);
  }

  private answerMaxBytes(): number {
    return (this.nats.info?.max_payload ?? DEFAULT_MAX_PAYLOAD) - ANSWER_HEADROOM_BYTES;
  }

  /** A run as one reply can carry it (`fitRunAnswer`), so a caller never waits out its timeout for it. */
  private fit(run: WorkflowRunDto): WorkflowRunDto {
    const fitted = fitRunAnswer(run, this.answerMaxBytes());
    if (!fitted) {
      throw new DomainException(
        'internal',
        `The run ${run.id} is too large to answer in one message of the message bus, even with its texts cut.`,
      );
    }
    return fitted;
  }
}
