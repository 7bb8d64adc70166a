import {
  DatabaseSubjects,
  type IdAndBody,
  type Principal,
  type QueryResponseDto,
  type ServiceQueryRequestDto,
} from '#contracts';
import { Handles } from '#nats';
import { Controller, Inject } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';

import { NATS_CONNECTION } from '../database.tokens.js';
import { QueryService } from './query.service.js';

/** Room for the envelope and packet around the results in one NATS message. */
const REPLY_OVERHEAD_BYTES = 4 * 1024;

@Controller()
export class QueryHandler {
  constructor(
    private readonly queries: QueryService,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
  ) {}

  /** The answer travels in one NATS message, so a batch whose answer would not fit is rolled back. */
  @Handles(DatabaseSubjects.query)
  async query(
    { id, body }: IdAndBody<ServiceQueryRequestDto>,
    principal: Principal,
  ): Promise<QueryResponseDto> {
    const maxPayload = this.nats.info?.max_payload ?? 1024 * 1024;
    const text = await this.queries.run(principal, id, body, maxPayload - REPLY_OVERHEAD_BYTES);
    return JSON.parse(text) as QueryResponseDto;
  }
}
