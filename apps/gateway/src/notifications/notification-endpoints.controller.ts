import {
  CreatedNotificationEndpointDto,
  CreateNotificationEndpointDto,
  DeletedDto,
  EventsSubjects,
  NotificationDeliveriesQueryDto,
  NotificationDeliveryDto,
  NotificationEndpointDto,
  NotificationSecretDto,
  PageOf,
  PageQueryDto,
  type Principal,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';

/** Run notifications (docs/notifications.md): where a workflow's runs are reported when they end. */
@ApiTags('notifications')
@Controller('api/v1/notification-endpoints')
export class NotificationEndpointsController {
  constructor(private readonly rpc: RpcClient) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a notification endpoint',
    description:
      "Extension beyond the contract. An HTTPS URL that runs are reported to when they end (a workflow names it in its diagram's `settings.notifications`), through one of the organization's `http` or `webhook` connections. Answers the endpoint with its `whsec_…` signing secret, shown this once. At most 50 per organization.",
  })
  @ApiCreatedResponse({ type: CreatedNotificationEndpointDto })
  @ApiErrors('invalid_request')
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateNotificationEndpointDto) {
    return this.rpc.request(EventsSubjects.notificationEndpointsCreate, principal, body);
  }

  @Get()
  @ApiOperation({
    summary: 'List notification endpoints',
    description: 'Extension beyond the contract. Newest first.',
  })
  @ApiOkResponse({ type: PageOf(NotificationEndpointDto) })
  @ApiErrors('invalid_request')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.rpc.request(EventsSubjects.notificationEndpointsList, principal, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a notification endpoint', description: 'Extension beyond the contract.' })
  @ApiOkResponse({ type: NotificationEndpointDto })
  @ApiErrors('invalid_request', 'notification_endpoint_not_found')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(EventsSubjects.notificationEndpointsGet, principal, { id });
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a notification endpoint',
    description:
      'Extension beyond the contract. Its deliveries go with it, pending ones unsent. A workflow that still names it publishes no more until its settings no longer do; its live version notifies the others.',
  })
  @ApiOkResponse({ type: DeletedDto })
  @ApiErrors('invalid_request', 'notification_endpoint_not_found')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(EventsSubjects.notificationEndpointsDelete, principal, { id });
  }

  @Post(':id/secret')
  @HttpCode(201)
  @ApiOperation({
    summary: "Make a notification endpoint's signing secret anew",
    description:
      'Extension beyond the contract. Answers the new `whsec_…` secret, shown this once; every attempt from now on, retries of earlier deliveries included, is signed with it.',
  })
  @ApiCreatedResponse({ type: NotificationSecretDto })
  @ApiErrors('invalid_request', 'notification_endpoint_not_found')
  rotateSecret(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(EventsSubjects.notificationEndpointsRotateSecret, principal, { id });
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary: "List a notification endpoint's deliveries",
    description:
      "Extension beyond the contract. Newest first, kept 30 days: one per run that notified the endpoint, with each attempt's outcome. `runId` finds one run's delivery.",
  })
  @ApiOkResponse({ type: PageOf(NotificationDeliveryDto) })
  @ApiErrors('invalid_request', 'notification_endpoint_not_found')
  deliveries(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Query() query: NotificationDeliveriesQueryDto,
  ) {
    return this.rpc.request(EventsSubjects.notificationDeliveriesList, principal, { id, query });
  }
}
