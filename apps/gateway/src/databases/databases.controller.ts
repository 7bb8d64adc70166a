import {
  CreateDatabaseDto,
  DatabaseDto,
  DatabaseSubjects,
  DeletedDto,
  PageOf,
  PageQueryDto,
  type Principal,
  QueryRequestDto,
  QueryResponseDto,
  UpdateDatabaseDto,
} from '#contracts';
import { RpcClient } from '#nats';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

import { CurrentPrincipal } from '../auth/principal.decorator.js';
import { ApiErrors } from '../http/api-errors.decorator.js';
import { BodyLimit } from '../http/body-size.decorator.js';
import { DatabaseQueryClient } from './database-query.client.js';

@ApiTags('databases')
@Controller('api/v1/databases')
export class DatabasesController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly queries: DatabaseQueryClient,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List databases' })
  @ApiOkResponse({ type: PageOf(DatabaseDto) })
  @ApiErrors('invalid_request')
  list(@CurrentPrincipal() principal: Principal, @Query() query: PageQueryDto) {
    return this.rpc.request(DatabaseSubjects.list, principal, query);
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a database' })
  @ApiCreatedResponse({ type: DatabaseDto })
  @ApiErrors('invalid_request', 'plan_limit_reached', 'database_name_taken')
  create(@CurrentPrincipal() principal: Principal, @Body() body: CreateDatabaseDto) {
    return this.rpc.request(DatabaseSubjects.create, principal, body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a database' })
  @ApiOkResponse({ type: DatabaseDto })
  @ApiErrors('invalid_request', 'database_not_found')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(DatabaseSubjects.get, principal, { id });
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Update a database' })
  @ApiOkResponse({ type: DatabaseDto })
  @ApiErrors('invalid_request', 'database_not_found', 'database_name_taken')
  update(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Body() body: UpdateDatabaseDto) {
    return this.rpc.request(DatabaseSubjects.update, principal, { id, body });
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Delete a database' })
  @ApiOkResponse({ type: DeletedDto, description: 'The database and its data file are deleted.' })
  @ApiErrors('invalid_request', 'database_not_found')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string) {
    return this.rpc.request(DatabaseSubjects.delete, principal, { id });
  }

  @Post(':id/query')
  @BodyLimit('query')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Run a batch of SQL statements in one transaction',
    description:
      'Statements run in order; `?` placeholders take `params`. The first failure rolls the batch back ' +
      'and answers query_failed with `details.statementIndex` (0-based). Rows past 16 MiB serialized ' +
      'roll back with result_too_large and `details.bytesRead`. A statement past 30 s is stopped, the ' +
      'batch rolls back and the answer is 500 internal. A batch that would leave the database past ' +
      "the plan's storage limits rolls back with plan_limit_reached (`details.resource` storage).",
  })
  @ApiOkResponse({ type: QueryResponseDto })
  @ApiErrors(
    'invalid_request',
    'query_failed',
    'result_too_large',
    'plan_limit_reached',
    'database_not_found',
    'service_unavailable',
  )
  async query(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Body() body: QueryRequestDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Buffer> {
    const json = await this.queries.query(principal, { id, body });
    // The service's JSON goes out as it came: parsing and printing up to 16 MiB again would only cost.
    void reply.header('content-type', 'application/json; charset=utf-8');
    return json;
  }
}
