import { DomainException } from '#common';
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  PageOf,
  type Principal,
  RUN_WAIT_MAX_SECONDS,
  RunnerSubjects,
  StartRunDto,
  type StartRunRequest,
  WorkflowRunDto,
  WorkflowRunSummaryDto,
  WorkflowRunsQueryDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { clientLeft } from './client-left.util.js';
import { LiveHolds } from './live-holds.js';
import { LiveRuns } from './live-runs.service.js';
import { preferredWaitSeconds } from './prefer-header.util.js';

const isIdempotencyKey = (key: string) => key.length >= 1 && key.length <= IDEMPOTENCY_KEY_MAX_LENGTH;

/**
 * A workflow's runs. The operation ids are those the API reference gave these routes when they were
 * `RunsController`'s: clients generated from the document name their methods after them.
 */
@ApiTags('runs')
@Controller('api/v1/workflows/:id/runs')
export class WorkflowRunsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly live: LiveRuns,
    private readonly holds: LiveHolds,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'RunsController_start',
    summary: 'Start a run',
    description:
      'Runs the live version, or the draft with `draft: true`. Answers as soon as the run is accepted, usually before its steps finish: poll the run.\n\n' +
      `Extension beyond the contract: with \`Prefer: wait=N\` (RFC 7240; N whole seconds, at most ${RUN_WAIT_MAX_SECONDS}) the 201 comes once the run is \`complete\`, \`errored\`, \`terminated\` or \`paused\`, or \`waiting\` on an approval or on a delay or retry due after the N seconds (one due sooner is waited through), or after N seconds with the run as it stands then, and carries \`Preference-Applied: wait=N\`. A replay of an \`Idempotency-Key\` waits the same way.`,
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
    description: `Extension beyond the contract. \`wait=N\` (RFC 7240): answer once the run is final or \`paused\`, or waits on an approval or on a delay or retry due after the N seconds (one due sooner is waited through), or after N seconds (at most ${RUN_WAIT_MAX_SECONDS}). Other preferences, and a \`wait\` that is not whole seconds, are ignored.`,
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

  @Get()
  @ApiOperation({
    operationId: 'RunsController_list',
    summary: "List a workflow's runs",
    description:
      'Newest first. Extension beyond the contract: `status` (repeatable), `trigger`, `createdAfter` and `createdBefore` narrow the list, pages and all; an invalid value answers 400 `invalid_request` naming it.',
  })
  @ApiOkResponse({ type: PageOf(WorkflowRunSummaryDto) })
  @ApiErrors('invalid_request', 'workflow_not_found')
  list(
    @CurrentPrincipal() principal: Principal,
    @Param('id') workflowId: string,
    @Query() query: WorkflowRunsQueryDto,
  ) {
    return this.rpc.request(RunnerSubjects.runsList, principal, { workflowId, query });
  }
}
