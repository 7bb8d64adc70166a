import { Readable } from 'node:stream';

import {
  ACTION_ANSWER_MARGIN_MS,
  ACTION_MAX_TIMEOUT_MS,
  AgentSubjects,
  ApprovalDecisionDto,
  BulkRunsDto,
  CancelRunDto,
  ChildRunsQueryDto,
  DecideApprovalDto,
  OPERATION_ACCEPT_TIMEOUT_MS,
  OperationDto,
  PageOf,
  type Principal,
  RerunRunDto,
  RunnerSubjects,
  RunsQueryDto,
  RunWaitQueryDto,
  WorkflowRunDto,
  WorkflowRunSummaryDto,
} from '#contracts';
import { DEFAULT_RPC_TIMEOUT_MS, RpcClient } from '#nats';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { clientLeft } from './client-left.util.js';
import { holdForStream, LiveHolds } from './live-holds.js';
import { LiveRuns, type RunEventStream } from './live-runs.service.js';

@ApiTags('runs')
@Controller('api/v1/runs')
export class RunsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly live: LiveRuns,
    private readonly holds: LiveHolds,
  ) {}

  @Get()
  @ApiOperation({
    summary: "List the organization's runs",
    description:
      "Extension beyond the contract. Every run of the organization, newest first, in pages like a workflow's runs, narrowed by `workflowId`, `status` (repeatable), `trigger`, `createdAfter` and `createdBefore`. Each filter walks an index, so a page costs about the same with a million runs (docs/benchmarks.md).",
  })
  @ApiOkResponse({ type: PageOf(WorkflowRunSummaryDto) })
  @ApiErrors('invalid_request', 'service_unavailable')
  search(@CurrentPrincipal() principal: Principal, @Query() query: RunsQueryDto) {
    return this.rpc.request(RunnerSubjects.runsSearch, principal, { query });
  }

  @Post('bulk')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Cancel or rerun every run a filter matches',
    description:
      "Extension beyond the contract. Matches the runs once, now (as `GET /api/v1/runs` with the same filter would list them), and answers 202 with the operation at once; the runner then acts on each run, a batch at a time, as `POST /runs/{id}/cancel` (with `reason`) or `POST /runs/{id}/rerun` (no body) would. Follow it with `GET /api/v1/operations/{id}`. A run the action does not apply to (say, a cancel of a finished run: `run_not_active`) counts as `failed`, with its code. It survives restarts, acts on each run at most once, and shares the runners fairly with other organizations' operations. A filter matching more runs than one operation takes (`OPERATIONS_MAX_TARGETS`, 200,000) answers 400 `invalid_request`.",
  })
  @ApiBody({ type: BulkRunsDto })
  @ApiAcceptedResponse({ type: OperationDto })
  @ApiErrors('invalid_request', 'service_unavailable')
  bulk(@CurrentPrincipal() principal: Principal, @Body() body: BulkRunsDto): Promise<OperationDto> {
    return this.rpc.request(RunnerSubjects.operationsBulkRuns, principal, body, OPERATION_ACCEPT_TIMEOUT_MS);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get a run with its steps',
    description:
      'Extension beyond the contract: `wait=N` holds the answer back, instead of polling, until the run is `complete`, `errored`, `terminated` (or `unknown`) or `paused`, or `waiting` on an approval or on a delay or retry due after the N seconds, or until N seconds pass, whichever is first. A delay or retry due within the N seconds is waited through: the answer comes once the run, woken, reaches one of those states. It counts as one request against the rate limit.',
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

  @Get(':id/children')
  @ApiOperation({
    summary: "List a run's child runs",
    description:
      "Extension beyond the contract. The runs a step of this run started: the runs of the workflows its `workflow` nodes called and the iterations of its `loop` nodes, oldest first (iterations by index), in pages like the other run lists (the cursor is the last child's id). `nodeId` keeps the children of one step; `status` (repeatable) those in any of these statuses. Each child shows `parentRunId` and `parentNodeId`, an iteration its `iteration`; `GET /api/v1/runs/{childId}` reads one with its steps. Loop iterations are listed only here, never among the organization's or a workflow's runs (docs/runs.md, \"Child runs\").",
  })
  @ApiOkResponse({ type: PageOf(WorkflowRunSummaryDto) })
  @ApiErrors('invalid_request', 'run_not_found', 'service_unavailable')
  children(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: ChildRunsQueryDto,
  ) {
    return this.rpc.request(RunnerSubjects.runsChildren, principal, { id, query });
  }

  @Get(':id/stream')
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

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a run',
    description:
      "Extension beyond the contract. The run ends `terminated` and nothing new starts in it; work in flight is stopped (an HTTP action's request aborted, a model call aborted, a SQL statement interrupted and rolled back), and those steps end `error` with a message naming who cancelled and why. Pending approvals are closed and delays never wake. With `rollback: true` the run goes `rollingBack` first: the `compensate` of each `done` action runs, newest first. A run that is final (or already rolling back) answers 409 `run_not_active`.",
  })
  @ApiBody({ type: CancelRunDto, required: false })
  @ApiOkResponse({ type: WorkflowRunDto })
  @ApiErrors('invalid_request', 'run_not_found', 'run_not_active', 'service_unavailable')
  cancel(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: CancelRunDto,
  ): Promise<WorkflowRunDto> {
    return this.rpc.request(RunnerSubjects.runsCancel, principal, { id, body });
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause a run',
    description:
      'Extension beyond the contract. A `queued` or `waiting` run is `paused` at once; a `running` one is `waitingForPause` while the steps already running finish (none starts), then `paused`. A paused run holds no process; delays and retries that fall due meanwhile, and approvals decided meanwhile, are acted on at resume. Pausing a run that is already `paused` or `waitingForPause` answers it as it is. A run that is final or rolling back answers 409 `run_not_active`.',
  })
  @ApiOkResponse({ type: WorkflowRunDto })
  @ApiErrors('invalid_request', 'run_not_found', 'run_not_active', 'service_unavailable')
  pause(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<WorkflowRunDto> {
    return this.rpc.request(RunnerSubjects.runsPause, principal, { id });
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Resume a paused run',
    description:
      'Extension beyond the contract. The run goes on from its checkpoints (`queued` until a runner takes it). A run that is not `paused` answers 409 `run_not_paused`.',
  })
  @ApiOkResponse({ type: WorkflowRunDto })
  @ApiErrors('invalid_request', 'run_not_found', 'run_not_paused', 'service_unavailable')
  resume(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<WorkflowRunDto> {
    return this.rpc.request(RunnerSubjects.runsResume, principal, { id });
  }

  @Post(':id/rerun')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Rerun a run, from a step',
    description:
      'Extension beyond the contract. Starts a new run of the same version (or of the draft diagram the run stored), which names this one in `rerunOf`. With `fromNodeId`, that node and everything downstream of it run anew, and every step that does not depend on it is carried over `done` with its output (`carriedFrom` on the step) and not executed again. Without `fromNodeId`, from the first failed step (the whole run again when none failed); with `input`, from the trigger with that input. Works for a run of any final status, and counts against the monthly runs (402 `plan_limit_reached`). A run that is not final yet answers 409 `run_not_final`; `fromNodeId` and `input` together, or a `fromNodeId` that is not a node the run can reach, answer 400 `invalid_request`, and so does a run whose diagram retention trimmed (`diagramTrimmed`), or a rerun that would carry over steps whose payloads retention trimmed (`trimmed`; from the trigger it still works): docs/retention.md.',
  })
  @ApiBody({ type: RerunRunDto, required: false })
  @ApiCreatedResponse({ type: WorkflowRunDto })
  @ApiErrors(
    'invalid_request',
    'plan_limit_reached',
    'run_not_found',
    'workflow_not_found',
    'run_not_final',
    'service_unavailable',
  )
  rerun(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: RerunRunDto,
  ): Promise<WorkflowRunDto> {
    return this.rpc.request(RunnerSubjects.runsRerun, principal, { id, body });
  }

  @Post(':id/approvals/:approvalId')
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
