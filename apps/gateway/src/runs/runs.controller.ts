import { Readable } from 'node:stream';

import { DomainException } from '#common';
import {
  ACTION_ANSWER_MARGIN_MS,
  ACTION_MAX_TIMEOUT_MS,
  AgentSubjects,
  ApprovalDecisionDto,
  DecideApprovalDto,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  PageOf,
  PageQueryDto,
  type Principal,
  RUN_WAIT_MAX_SECONDS,
  RunnerSubjects,
  RunWaitQueryDto,
  StartRunDto,
  type StartRunRequest,
  WorkflowRunDto,
  WorkflowRunSummaryDto,
} from '#contracts';
import { DEFAULT_RPC_TIMEOUT_MS, RpcClient } from '#nats';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { holdForStream, LiveHolds } from './live-holds.js';
import { LiveRuns, type RunEventStream } from './live-runs.service.js';
import { preferredWaitSeconds } from './prefer-header.util.js';

/** Aborted when the client goes away before it was answered, so a wait lets go of the run at once. */
function clientLeft(reply: FastifyReply): AbortSignal {
  const left = new AbortController();
  reply.raw.once('close', () => left.abort());
  return left.signal;
}

const isIdempotencyKey = (key: string) => key.length >= 1 && key.length <= IDEMPOTENCY_KEY_MAX_LENGTH;

@ApiTags('runs')
@Controller('api/v1')
export class RunsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly live: LiveRuns,
    private readonly holds: LiveHolds,
  ) {}

  @Post('workflows/:id/runs')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Start a run',
    description:
      'Runs the live version, or the draft with `draft: true`. Answers as soon as the run is accepted, usually before its steps finish: poll the run.\n\n' +
      `Extension beyond the contract: with \`Prefer: wait=N\` (RFC 7240; N whole seconds, at most ${RUN_WAIT_MAX_SECONDS}) the 201 comes once the run is \`complete\`, \`errored\`, \`terminated\` or \`waiting\`, or after N seconds with the run as it stands then, and carries \`Preference-Applied: wait=N\`. A replay of an \`Idempotency-Key\` waits the same way.`,
  })
  @ApiBody({ type: StartRunDto, required: false })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'The same key from the same organization within 24 hours, sent again with the same workflow and body, answers the run it first created (with `Idempotent-Replayed: true`). The same key with another workflow or another body answers 422 `idempotency_key_reused`.',
  })
  @ApiHeader({
    name: 'Prefer',
    required: false,
    description: `Extension beyond the contract. \`wait=N\` (RFC 7240): answer once the run is final or waiting, or after N seconds (at most ${RUN_WAIT_MAX_SECONDS}). Other preferences, and a \`wait\` that is not whole seconds, are ignored.`,
  })
  @ApiCreatedResponse({
    type: WorkflowRunDto,
    headers: {
      'Idempotent-Replayed': {
        description: '`true` when an earlier run was answered; absent otherwise.',
        schema: { type: 'string', enum: ['true'] },
      },
      'Preference-Applied': {
        description:
          'Extension beyond the contract: `wait=N` when a `Prefer: wait` was honoured, N the seconds waited at most.',
        schema: { type: 'string' },
      },
    },
  })
  @ApiErrors(
    'invalid_request',
    'invalid_workflow',
    'trigger_required',
    'plan_limit_reached',
    'workflow_not_found',
    'not_published',
    'idempotency_key_reused',
  )
  async start(
    @CurrentPrincipal() principal: Principal,
    @Param('id') workflowId: string,
    @Body() body: StartRunDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Headers('prefer') prefer: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkflowRunDto> {
    const began = Date.now();
    const left = clientLeft(reply);
    if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)) {
      throw DomainException.invalidRequest([
        {
          path: 'Idempotency-Key',
          message: `the Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`,
        },
      ]);
    }
    const request: StartRunRequest = {
      workflowId,
      input: body.input ?? '',
      draft: body.draft ?? false,
      ...(body.triggerNodeId === undefined ? {} : { triggerNodeId: body.triggerNodeId }),
      trigger: 'api',
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    };
    const started = await this.rpc.request(RunnerSubjects.runsStart, principal, request);
    if (started.replayed) void reply.header('Idempotent-Replayed', 'true');
    const wait = preferredWaitSeconds(prefer);
    const release = wait === undefined ? null : this.holds.take(principal.organizationId);
    if (wait === undefined || !release) return started.run;
    void reply.header('Preference-Applied', `wait=${wait}`);
    try {
      return await this.live.waitFor(principal, started.run.id, began + wait * 1000, left, started.run);
    } finally {
      release();
    }
  }

  @Get('workflows/:id/runs')
  @ApiOperation({ summary: "List a workflow's runs" })
  @ApiOkResponse({ type: PageOf(WorkflowRunSummaryDto) })
  @ApiErrors('invalid_request', 'workflow_not_found')
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('id') workflowId: string,
    @Query() query: PageQueryDto,
  ) {
    return this.rpc.request(RunnerSubjects.runsList, principal, { workflowId, query });
  }

  @Get('runs/:id')
  @ApiOperation({
    summary: 'Get a run with its steps',
    description:
      'Extension beyond the contract: `wait=N` holds the answer back until the run is `complete`, `errored`, `terminated` or `waiting`, or N seconds pass, whichever is first, instead of polling. It counts as one request against the rate limit.',
  })
  @ApiOkResponse({ type: WorkflowRunDto })
  @ApiErrors('invalid_request', 'run_not_found', 'service_unavailable')
  async get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: RunWaitQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const release = query.wait === undefined ? null : this.holds.take(principal.organizationId);
    if (query.wait === undefined || !release) {
      return this.rpc.request(RunnerSubjects.runsGet, principal, { id });
    }
    try {
      return await this.live.waitFor(principal, id, Date.now() + query.wait * 1000, clientLeft(reply));
    } finally {
      release();
    }
  }

  @Get('runs/:id/stream')
  @ApiOperation({
    summary: 'Follow a run as Server-Sent Events',
    description:
      'Extension beyond the contract. `text/event-stream` of the run until it is final: first `run` (the whole WorkflowRun), then a `step` (a RunStep) each time a step is read in a new state (changes recorded between two reads come as one, steps in start order), a `status` (`{id, status, reply, error}`) when the run changes status, and `end` (`{id, status}`) once it is `complete`, `errored` or `terminated`, after which the stream closes (an EventSource should call `close()` on `end`, or it reconnects). Comment lines (every 15 s by default, `RUN_STREAM_HEARTBEAT_MS`) keep proxies from closing it, and every fourth one the run is read again, in case a change notice was lost. Works with a session cookie (EventSource) or `Authorization: Bearer`. An unknown run answers 404 `run_not_found` as JSON before the stream starts. The stream counts as one request against the rate limit.',
  })
  @ApiProduces('text/event-stream')
  @ApiOkResponse({
    description: 'Server-Sent Events `run`, `step`, `status`, `end`, as described above.',
    content: { 'text/event-stream': { schema: { type: 'string' } } },
  })
  @ApiErrors('invalid_request', 'run_not_found', 'service_unavailable')
  async stream(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const release = holdForStream(this.holds, principal, reply);
    const left = clientLeft(reply);
    let stream: RunEventStream;
    try {
      stream = await this.live.stream(principal, id);
    } catch (error) {
      release();
      throw error;
    }
    const close = () => {
      stream.close();
      release();
    };
    if (left.aborted) return close();
    left.addEventListener('abort', close, { once: true });
    void reply
      .status(200)
      .headers({
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        // nginx buffers answers unless told otherwise, which would hold events back.
        'x-accel-buffering': 'no',
      })
      .send(Readable.from(stream.events, { objectMode: false }));
  }

  @Post('runs/:id/approvals/:approvalId')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Approve or deny an agent action waiting for approval',
    description:
      "Approving runs the action (the answer waits for it and carries its outcome in `result`); denying resumes the agent with the `reason`. Either way the run continues. Any member or key of the organization may decide; a decided or expired approval answers 409 `approval_not_pending`. The Agent step's `output.approvals` lists each call with its id.",
  })
  @ApiBody({ type: DecideApprovalDto })
  @ApiOkResponse({ type: ApprovalDecisionDto })
  @ApiErrors('invalid_request', 'run_not_found', 'approval_not_found', 'approval_not_pending')
  decide(
    @CurrentPrincipal() principal: Principal,
    @Param('id') runId: string,
    @Param('approvalId') approvalId: string,
    @Body() body: DecideApprovalDto,
  ): Promise<ApprovalDecisionDto> {
    return this.rpc.request(
      AgentSubjects.approvalsDecide,
      principal,
      { runId, approvalId, body },
      // An approval reads the run and runs its action before it answers, then wakes the run.
      ACTION_MAX_TIMEOUT_MS + 2 * ACTION_ANSWER_MARGIN_MS + 2 * DEFAULT_RPC_TIMEOUT_MS,
    );
  }
}
