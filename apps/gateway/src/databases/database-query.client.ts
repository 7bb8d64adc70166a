import type { Principal, QueryRequest } from '#contracts';
import { DatabaseSubjects } from '#contracts';
import { connectNats, type NatsEndpoint, QueryStreamClient } from '#nats';
import type { OnApplicationShutdown, Provider } from '@nestjs/common';

/**
 * Sends query batches over `DatabaseSubjects.queryStream` and answers the JSON of the reply as
 * bytes, which the route passes on without parsing. It has a NATS connection of its own, so a large
 * answer arriving here never delays the small replies of other routes on the shared one.
 */
export class DatabaseQueryClient extends QueryStreamClient implements OnApplicationShutdown {
  static provider(endpoint: NatsEndpoint): Provider {
    return {
      provide: DatabaseQueryClient,
      useFactory: async () =>
        new DatabaseQueryClient(await connectNats(endpoint, 'gateway-databases'), 'gateway'),
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nats.drain();
  }

  /** The UTF-8 JSON of `{results}`, or a DomainException with the service's code. */
  query(principal: Principal, request: QueryRequest): Promise<Buffer> {
    const payload = Buffer.from(JSON.stringify({ principal, data: request }), 'utf8');
    return this.send(DatabaseSubjects.queryStream.name, payload);
  }
}
