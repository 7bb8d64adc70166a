import {
  AppEventDto,
  EventsSubjects,
  OPERATION_ACCEPT_TIMEOUT_MS,
  OperationDto,
  PageOf,
  PageQueryDto,
  type Principal,
  QueuedDto,
  ReplayEventDto,
  ReplayEventsDto,
  RunnerSubjects,
  WorkflowSubjects,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

@ApiTags('workflows')
@Controller('api/v1/workflows/:id/events')
export class EventsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @ApiOperation({
    summary: "List a workflow's app events",
    description: "Newest first, kept 30 days, each with what every one of the workflow's triggers did.",
  })
  @ApiOkResponse({ type: PageOf(AppEventDto) })
  @ApiErrors('invalid_request', 'workflow_not_found')
  async list(
    @CurrentPrincipal() principal: Principal,
    @Param('id') workflowId: string,
    @Query() query: PageQueryDto,
  ) {
    await this.assertWorkflow(principal, workflowId);
    return this.rpc.request(EventsSubjects.eventsList, principal, { workflowId, query });
  }

  @Post('replay')
  @HttpCode(202)
  @ApiOperation({
    summary: "Replay a trigger's stored events, by outcome and time",
    description:
      "Extension beyond the contract. Matches the workflow's stored events for the trigger once, now (by their outcome for it and when they were received: `after` inclusive, `before` exclusive), and answers 202 with an operation of action `replay`; each event is then replayed as `POST /events/{eventId}/replay` would, a batch at a time, and `GET /api/v1/operations/{id}` follows it. An event whose trigger already started a run for it starts nothing new, as with one replay.",
  })
  @ApiBody({ type: ReplayEventsDto })
  @ApiAcceptedResponse({ type: OperationDto })
  @ApiErrors('invalid_request', 'workflow_not_found', 'service_unavailable')
  async replayMany(
    @CurrentPrincipal() principal: Principal,
    @Param('id') workflowId: string,
    @Body() body: ReplayEventsDto,
  ): Promise<OperationDto> {
    await this.assertWorkflow(principal, workflowId);
    return this.rpc.request(
      RunnerSubjects.operationsReplayEvents,
      principal,
      { workflowId, body },
      OPERATION_ACCEPT_TIMEOUT_MS,
    );
  }

  @Post(':eventId/replay')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Replay an app event for one trigger',
    description:
      'Queues the stored event again for the trigger, which starts a run of the live version. A trigger that already started a run for the event starts nothing new; a trigger no longer live records no_listener.',
  })
  @ApiOkResponse({ type: QueuedDto })
  @ApiErrors('invalid_request', 'workflow_not_found', 'event_not_found')
  async replay(
    @CurrentPrincipal() principal: Principal,
    @Param('id') workflowId: string,
    @Param('eventId') eventId: string,
    @Body() body: ReplayEventDto,
  ) {
    await this.assertWorkflow(principal, workflowId);
    return this.rpc.request(EventsSubjects.eventsReplay, principal, {
      workflowId,
      eventId,
      triggerNodeId: body.triggerNodeId,
    });
  }

  /** The events service keeps events, not workflows: workflow says whether this one is the caller's. */
  private async assertWorkflow(principal: Principal, workflowId: string): Promise<void> {
    await this.rpc.request(WorkflowSubjects.get, principal, { id: workflowId });
  }
}
