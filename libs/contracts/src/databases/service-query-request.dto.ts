import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';

import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';

import { QUERY_LIMITS } from './query-limits.js';
import { ServiceQueryStatementDto } from './service-query-statement.dto.js';

/**
 * The body of `DatabaseSubjects.query`: the route's rules, except that params may also be booleans
 * (a workflow's database step passes the values its node holds).
 */
export class ServiceQueryRequestDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(QUERY_LIMITS.maxStatements)
  @ValidateNested({ each: true })
  @Type(() => ServiceQueryStatementDto)
  statements!: ServiceQueryStatementDto[];

  /**
   * Only SELECTs run: anything else (a write, DDL, ATTACH, COPY, PRAGMA, SET, a SELECT that writes)
   * fails the batch. An agent's read-only database grant, enforced here rather than by its prompt.
   */
  @IsOptional()
  @IsBoolean()
  readOnly?: boolean;

  /**
   * The run whose step (or agent) runs the batch: a cancel of that run interrupts it and rolls it
   * back (`RunnerSubjects.runCancelled`).
   */
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  runId?: string;
}
