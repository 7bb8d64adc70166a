import {
  AppEventDto,
  EventsSubjects,
  PageOf,
  PageQueryDto,
  type Principal,
  QueuedDto,
  ReplayEventDto,
  WorkflowSubjects,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

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
