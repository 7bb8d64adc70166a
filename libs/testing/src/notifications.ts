import { type ApiClient, expectData } from './api-client.js';
import type { Schemas } from './api-schema.js';

export type NotificationEndpoint = Schemas['CreatedNotificationEndpointDto'];
export type NotificationDelivery = Schemas['NotificationDeliveryDto'];

/** A notification endpoint of the caller's organization, with its secret (shown this once). */
export async function createNotificationEndpoint(
  api: ApiClient,
  connectionId: string,
  url: string,
  name = 'Alerts',
): Promise<NotificationEndpoint> {
  const created = await api.POST('/api/v1/notification-endpoints', { body: { name, connectionId, url } });
  return expectData(created, 201);
}

/** The endpoint's deliveries, newest first; with `runId`, that run's alone. */
export async function deliveriesOf(
  api: ApiClient,
  endpointId: string,
  runId?: string,
): Promise<NotificationDelivery[]> {
  const page = await api.GET('/api/v1/notification-endpoints/{id}/deliveries', {
    params: { path: { id: endpointId }, query: { limit: 100, ...(runId === undefined ? {} : { runId }) } },
  });
  return expectData(page, 200).data;
}
