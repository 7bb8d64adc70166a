import {
  DatabaseSubjects,
  type IdAndBody,
  type Principal,
  type QueryResponseDto,
  type ServiceQueryRequestDto,
} from '#contracts';
import { Handles } from '#nats';
import { Controller } from '@nestjs/common';

import { QueryService } from './query.service.js';

@Controller()
export class QueryHandler {
  constructor(private readonly queries: QueryService) {}

  /** The answer travels in one NATS message, so a batch whose answer would not fit is rolled back. */
  @Handles(DatabaseSubjects.query)
  query(request: IdAndBody<ServiceQueryRequestDto>, principal: Principal): Promise<QueryResponseDto> {
    return this.queries.runForService(principal, request);
  }
}
