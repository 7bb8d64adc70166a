import { DomainException, toValidationIssues } from '#common';
import { ValidationPipe } from '@nestjs/common';

/** The one validation rule of every edge: unknown fields dropped, each problem named. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    validateCustomDecorators: true,
    exceptionFactory: (errors) => DomainException.invalidRequest(toValidationIssues(errors)),
  });
}
