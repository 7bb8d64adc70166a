import type { NatsConnection } from '@nats-io/transport-node';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';

import type { RpcServer } from '../rpc.server.js';

/**
 * The RPC server the service's requests arrive on. It starts after the container is built, so the
 * bootstrap hands it over here once it has; being a provider, this is also where Nest's shutdown
 * reaches it.
 */
@Injectable()
export class NatsServerConnection implements OnModuleDestroy {
  private server?: RpcServer;

  attach(server: RpcServer): void {
    this.server = server;
  }

  get(): NatsConnection {
    if (!this.server) throw new Error('The NATS server has not connected yet');
    return this.server.connection;
  }

  /**
   * Requests already received are answered before the service's own shutdown hooks close what the
   * handlers use (`beforeApplicationShutdown`, `onApplicationShutdown` run after this).
   */
  async onModuleDestroy(): Promise<void> {
    await this.server?.drain();
  }
}
