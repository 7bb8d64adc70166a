import { DomainException } from '#common';
import type { ActionResult, ConnectionHealth, ConnectionSettings, IntegrationId } from '#contracts';

/** A connection with its credentials opened: only ever held in this service's memory. */
export interface OpenConnection {
  id: string;
  organizationId: string;
  integrationId: IntegrationId;
  health: ConnectionHealth;
  credentials: Record<string, unknown>;
}

export interface ActionCall {
  connection: OpenConnection;
  /** The action's own name, without the provider: `request` for `http__request`. */
  action: string;
  input: Record<string, unknown>;
  idempotencyKey: string;
  timeoutMs: number;
  /** Aborted when the call's run is cancelled: the call fails with the signal's reason. */
  signal?: AbortSignal;
}

export interface ActionDone extends ActionResult {
  /** What the answer says about the connection, when it says something (a gone webhook URL). */
  health?: ConnectionHealth;
}

/** An app's event as it arrived, verified. */
export interface InboundEvent {
  /** The app's id of the delivery: a redelivery carries the same one. */
  deliveryId: string;
  /** `<provider>/<trigger-name>`. */
  trigger: string;
  firedAt: Date;
  payload: string;
}

/** What becomes of a connection being made: the credentials to keep, and secrets to show once. */
export interface Connected {
  credentials: Record<string, unknown>;
  secret?: string;
  sendingSecret?: string;
  /** Keeps what the app told about itself while connecting (an MCP server's tools), once the connection exists. */
  keep?(connection: { id: string; organizationId: string }): Promise<void>;
}

/** A new sending secret: the credentials to keep, and the secret to show once. */
export interface Rotated {
  credentials: Record<string, unknown>;
  sendingSecret: string;
}

/**
 * One app integration. The built-in ones live in this service; an external app-connection service
 * would implement the same operations behind NATS. Each throws a DomainException whose message a
 * member can act on.
 */
export interface AppProvider {
  readonly id: IntegrationId;
  /**
   * Checks a member's `config` and turns it into the credentials to keep (invalid_request). An app
   * that must be asked first (an MCP server, for its tools) answers a promise.
   */
  connect(config: Record<string, unknown>): Connected | Promise<Connected>;
  /**
   * Starts listening for `trigger` on the connection, or refuses with the reason (answered as
   * subscription_failed). Built-in triggers arrive by webhook, so there is nothing to call.
   */
  subscribe(connection: OpenConnection, trigger: string): void;
  /** One attempt of an action (already known to be one of this provider's). */
  execute(call: ActionCall): Promise<ActionDone>;
  /** Verifies a delivery to `/hooks/{connectionId}`; throws unauthorized when it is not the app's. */
  receive?(connection: OpenConnection, headers: Record<string, string>, body: string): InboundEvent;
  /** What of the kept credentials members may read (never a secret). */
  settings?(credentials: Record<string, unknown>): ConnectionSettings;
  /** The credentials to keep once `settings` change (invalid_request when they do not apply). */
  configure?(credentials: Record<string, unknown>, settings: ConnectionSettings): Record<string, unknown>;
  /** A new secret for what the connection sends: the credentials to keep, and the secret to show once. */
  rotateSendingSecret?(credentials: Record<string, unknown>): Rotated;
}

/** The app refused the connection itself (revoked credentials, a gone URL): it becomes unhealthy. */
export class ConnectionRefused extends DomainException {
  constructor(message: string) {
    super('service_unavailable', message);
  }
}

/**
 * The app answered, and its answer is a failure of the action (an MCP tool's `isError`): the
 * attempt fails, and the connection is known to work.
 */
export class AnsweredFailure extends DomainException {
  constructor(message: string) {
    super('service_unavailable', message);
  }
}
