import type { NatsConnection } from '@nats-io/transport-node';
import { Injectable } from '@nestjs/common';

/**
 * The connection Nest's NATS server takes the service's requests on. The server opens it when the
 * app starts, after the container is built, so the bootstrap hands it over here once it has.
 */
@Injectable()
export class NatsServerConnection {
  private connection?: NatsConnection;

  attach(connection: NatsConnection): void {
    this.connection = connection;
  }

  get(): NatsConnection {
    if (!this.connection) throw new Error('The NATS server has not connected yet');
    return this.connection;
  }
}
