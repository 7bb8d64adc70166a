import { Readable } from 'node:stream';

import {
  ACTION_ANSWER_MARGIN_MS,
  ACTION_MAX_TIMEOUT_MS,
  AgentSubjects,
  ApprovalDecisionDto,
  DecideApprovalDto,
  type Principal,
  RunnerSubjects,
  RunWaitQueryDto,
  WorkflowRunDto,
} from '#contracts';
import { DEFAULT_RPC_TIMEOUT_MS, RpcClient } from '#nats';
import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
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

  @Get(':id')
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
