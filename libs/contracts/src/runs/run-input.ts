import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, ValidateBy, ValidateIf } from 'class-validator';

import { RUN_INPUT_MAX_LENGTH } from './run-status.js';

/**
 * A run's input length in Unicode code points: what a person counts as characters (an emoji is one),
 * and the one count the gateway and the runner both apply.
 */
export function runInputLength(input: string): number {
  let length = input.length;
  for (let index = 0; index < input.length - 1; index += 1) {
    const unit = input.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = input.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length -= 1;
        index += 1;
      }
    }
  }
  return length;
}

/** Code points never outnumber UTF-16 units, so only a long string needs counting. */
export function isRunInputWithinLimit(input: string): boolean {
  return input.length <= RUN_INPUT_MAX_LENGTH || runInputLength(input) <= RUN_INPUT_MAX_LENGTH;
}

const description =
  'The trigger payload, default empty, up to 100,000 characters (Unicode code points). JSON text is readable in steps as `{{trigger.<path>}}`; other text as `{{trigger}}`.';

/** The run input rule of every edge that accepts one. */
export function RunInputField({ optional }: { optional: boolean }): PropertyDecorator {
  return applyDecorators(
    optional
      ? ApiPropertyOptional({
          type: String,
          maxLength: RUN_INPUT_MAX_LENGTH,
          description,
          example: '{"email":"ada@example.com"}',
        })
      : ApiProperty({ type: String, maxLength: RUN_INPUT_MAX_LENGTH, description }),
    ...(optional ? [ValidateIf((_object: object, value: unknown) => value !== undefined)] : []),
    IsString(),
    ValidateBy({
      name: 'isRunInput',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && isRunInputWithinLimit(value),
        defaultMessage: () => `input must be at most ${RUN_INPUT_MAX_LENGTH} characters`,
      },
    }),
  );
}
