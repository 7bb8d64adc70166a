import { DomainException } from '#common';
import type { RpcEnvelope } from '#contracts';
import { Catch, type ExceptionFilter } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { type Observable, of } from 'rxjs';

import { MalformedMessageException } from './message-validation.js';

/**
 * Answers every failure as an `{ok: false}` envelope rather than a transport error, so the caller
 * always learns the contract's code. Unexpected errors are logged with an id and answered opaquely.
 */
@Catch()
export class RpcExceptionFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown): Observable<RpcEnvelope<never>> {
    if (exception instanceof DomainException) {
      // A peer sent what its subject does not allow: a bug or a forged message, worth a log line.
      if (exception instanceof MalformedMessageException) {
        this.logger.warn({ issues: exception.details?.issues }, exception.message);
      }
      return of({
        ok: false,
        error: {
          status: exception.status,
          code: exception.code,
          message: exception.message,
          ...(exception.details === undefined ? {} : { details: exception.details }),
        },
      });
    }
    const errorId = randomUUID();
    this.logger.error({ err: exception, errorId }, 'unexpected error in handler');
    return of({
      ok: false,
      error: {
        status: 500,
        code: 'internal',
        message: `Something went wrong on our side (error id ${errorId}).`,
      },
    });
  }
}
