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
  RunnerSubjects,
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
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

const isIdempotencyKey = (key: string) => key.length >= 1 && key.length <= IDEMPOTENCY_KEY_MAX_LENGTH;

@ApiTags('runs')
@Controller('api/v1')
export class RunsController {
  constructor(private readonly rpc: RpcClient) {}

  @Post('workflows/:id/runs')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Start a run',
    description:
      'Runs the live version, or the draft with `draft: true`. Answers as soon as the run is accepted, usually before its steps finish: poll the run.',
  })
  @ApiBody({ type: StartRunDto, required: false })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'The same key from the same organization within 24 hours, sent again with the same workflow and body, answers the run it first created (with `Idempotent-Replayed: true`). The same key with another workflow or another body answers 422 `idempotency_key_reused`.',
  })
  @ApiCreatedResponse({
    type: WorkflowRunDto,
    headers: {
      'Idempotent-Replayed': {
        description: '`true` when an earlier run was answered; absent otherwise.',
        schema: { type: 'string', enum: ['true'] },
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
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WorkflowRunDto> {
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
    return started.run;
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
  @ApiOperation({ summary: 'Get a run with its steps' })
  @ApiOkResponse({ type: WorkflowRunDto })
  @ApiErrors('invalid_request', 'run_not_found')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(RunnerSubjects.runsGet, principal, { id });
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
