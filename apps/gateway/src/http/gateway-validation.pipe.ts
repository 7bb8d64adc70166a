import { DomainException } from '#common';
import { createValidationPipe } from '#nats';
import { type ArgumentMetadata, Injectable, type PipeTransform, type ValidationPipe } from '@nestjs/common';

/**
 * The shared validation pipe, plus the rule that a body is a JSON object: a missing body is taken as
 * `{}` (several routes have an optional body), and an array or a bare value is refused.
 */
@Injectable()
export class GatewayValidationPipe implements PipeTransform {
  private readonly inner: ValidationPipe = createValidationPipe();

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
