import { DomainException, toValidationIssues } from '#common';
import { type ArgumentMetadata, Injectable, type PipeTransform, ValidationPipe } from '@nestjs/common';

/**
 * The HTTP edge's validation: unknown fields dropped, each problem named, plus the rule that a body is a JSON object: a missing body is taken as
 * `{}` (several routes have an optional body), and an array or a bare value is refused.
 */
@Injectable()
export class GatewayValidationPipe implements PipeTransform {
  private readonly inner = new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    validateCustomDecorators: true,
    exceptionFactory: (errors) => DomainException.invalidRequest(toValidationIssues(errors)),
  });

  async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      if (value === undefined || value === null) value = {};
      if (typeof value !== 'object' || Array.isArray(value)) {
        throw DomainException.invalidRequest([{ path: 'body', message: 'body must be a JSON object' }]);
      }
    }
    return this.inner.transform(value, metadata);
  }
}
