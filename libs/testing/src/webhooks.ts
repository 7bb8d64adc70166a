import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

import { adminCli } from './admin-cli.js';
import type { ApiClient } from './api-client.js';
import type { ErrorBody } from './api-schema.js';
import type { StackDescription } from './test-stack.js';

export interface Connection {
  connectionId: string;
  /** The `whsec_…` secret deliveries to a webhook connection are signed with. */
  secret?: string;
  /** The `whsec_…` secret a webhook connection's `webhook__send` signs with. */
  sendingSecret?: string;
}

/** An app connection made with the admin CLI, as an operator would. */
export function createConnection(
  stack: StackDescription,
  organizationId: string,
  integration: 'http' | 'webhook' | 'slack' | 'mcp',
  { name = `${integration}-${randomUUID().slice(0, 8)}`, config }: { name?: string; config?: object } = {},
): Promise<Connection> {
  return adminCli<Connection>(
    [
      'connection',
      'create',
      '--org',
      organizationId,
      '--integration',
      integration,
      '--name',
      name,
      ...(config === undefined ? [] : ['--config', JSON.stringify(config)]),
    ],
    stack.env,
  );
}

export interface Delivery {
  id: string;
  body: string;
  headers: Record<string, string>;
}

/** A delivery signed the Standard Webhooks way with `secret`, as an app would send it. */
export function signedDelivery(
  secret: string,
  payload: unknown,
  { id = `msg_${randomUUID()}`, at = new Date() }: { id?: string; at?: Date } = {},
): Delivery {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const signature = new Webhook(secret).sign(id, at, body);
  return {
    id,
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}

/** What `POST /hooks/{connectionId}` answers: `{received: true}`, or an error. */
export type HookAnswer = { received?: true } & Partial<ErrorBody>;

/**
 * Posts a delivery to `POST /hooks/{connectionId}`, a route apps call and the OpenAPI document leaves
 * out; the body is what the route answers, or its text when that is not JSON.
 */
export async function deliver(
  baseUrl: string,
  connectionId: string,
  delivery: Pick<Delivery, 'body' | 'headers'>,
): Promise<{ status: number; body: HookAnswer }> {
  const response = await fetch(`${baseUrl}/hooks/${connectionId}`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // the test sees the text
  }
  return { status: response.status, body: body as HookAnswer };
}

/** Every app event of a workflow, newest first, with what each of its triggers did. */
export function eventsOf(api: ApiClient, workflowId: string) {
  return api.listAll('/api/v1/workflows/{id}/events', { path: { id: workflowId } });
}
