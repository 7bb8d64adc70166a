import { randomUUID } from 'node:crypto';

import { DomainException, requestContext } from '#common';
import { DatabaseSubjects, REQUEST_ID_HEADER, shardSubject } from '#contracts';
import { failureEnvelope, MalformedMessageException, natsServerSpan, readMessage, validateAs } from '#nats';
import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';

import { LOGGER, NATS_CONNECTION, SHARD } from '../database.tokens.js';
import { DatabasesService } from '../databases/databases.service.js';
import { QueryService } from '../query/query.service.js';
import { AdoptRequest, MoveRequest } from './move.messages.js';
import { MoveService } from './move.service.js';
import type { ForwardedPacket } from './shard.client.js';

type Verb = (message: Msg) => Promise<unknown>;

/**
 * Serves this replica's own subjects, `database.shard.<k>.<verb>`, which no other replica
 * subscribes to: requests forwarded by the replica that received them because this one holds the
 * database, and the steps of moving a database (the query stream's are in QueryStreamServer).
 * Requests are validated with the same classes as on the shared subjects.
 */
@Injectable()
export class ShardServer implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly databases: DatabasesService,
    private readonly queries: QueryService,
    private readonly moves: MoveService,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    @Inject(SHARD) private readonly shard: number,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    const verbs: Record<string, Verb> = {
      create: async (message) => {
        const { request, caller } = readMessage(DatabaseSubjects.create, packetOf(message));
        return this.databases.createHere(caller, request);
      },
      delete: async (message) => {
        const { request, caller } = readMessage(DatabaseSubjects.delete, packetOf(message));
        if (await this.databases.deleteHere(caller, request.id)) return { deleted: true };
        throw new DomainException(
          'service_unavailable',
          'The database is moving between servers. Try again.',
        );
      },
      query: async (message) => {
        const packet = packetOf(message);
        const { request, caller } = readMessage(DatabaseSubjects.query, packet);
        const deadline = typeof packet.deadline === 'number' ? packet.deadline : undefined;
        return this.queries.runForService(caller, request, deadline);
      },
      move: async (message) => {
        const { databaseId, target } = validated(MoveRequest, 'move', packetOf(message).data);
        return this.moves.moveOut(databaseId, target);
      },
      receive: async (message) => {
        await this.moves.receive(message);
        return null;
      },
      adopt: async (message) => this.moves.adopt(validated(AdoptRequest, 'adopt', packetOf(message).data)),
    };
    this.subscriptions = Object.entries(verbs).map(([verb, serve]) =>
      this.nats.subscribe(shardSubject(this.shard, verb), {
        callback: (error, message) => {
          if (error || !message.reply) return;
          const requestId = message.headers?.get(REQUEST_ID_HEADER) || randomUUID();
          void requestContext.run({ requestId }, () =>
            natsServerSpan(`database.shard.${verb}`, 'database', message.headers, async () => {
              let reply: string;
              try {
                reply = JSON.stringify({ ok: true, data: (await serve(message)) ?? null });
              } catch (failure) {
                reply = JSON.stringify(failureEnvelope(failure, this.logger));
              }
              message.respond(reply);
            }),
          );
        },
      }),
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.subscriptions.map((subscription) => subscription.drain()));
  }
}

function packetOf(message: Msg): ForwardedPacket {
  try {
    return message.json<ForwardedPacket>();
  } catch {
    throw new MalformedMessageException(message.subject, [{ path: '', message: 'the message must be JSON' }]);
  }
}

function validated<T extends object>(type: new () => T, verb: string, data: unknown): T {
  const checked = validateAs(type, data, '');
  if (checked.value === undefined)
    throw new MalformedMessageException(`database.shard.*.${verb}`, checked.issues);
  return checked.value;
}
