import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsISO8601,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';

/**
 * Field decorators that put a rule and its OpenAPI description in one place, so the two cannot drift.
 */

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;

interface TextOptions {
  min?: number;
  max?: number;
  description?: string;
  example?: string;
}

/** A required string. */
export function TextField({ min = 0, max, description, example }: TextOptions = {}): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ type: String, minLength: min || undefined, maxLength: max, description, example }),
    IsString(),
    ...(min > 0 ? [MinLength(min)] : []),
    ...(max === undefined ? [] : [MaxLength(max)]),
  );
}

/** A string that may be omitted but, when sent, must be a string (null is refused). */
export function OptionalTextField({
  min = 0,
  max,
  description,
  example,
}: TextOptions = {}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, minLength: min || undefined, maxLength: max, description, example }),
    ValidateIf((_object, value) => value !== undefined),
    IsString(),
    ...(min > 0 ? [MinLength(min)] : []),
    ...(max === undefined ? [] : [MaxLength(max)]),
  );
}

/** A string that may be omitted or null. */
export function NullableTextField({
  max,
  description,
}: {
  max: number;
  description?: string;
}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength: max, description }),
    IsOptional(),
    IsString(),
    MaxLength(max),
  );
}

/** A lowercase, hyphenated name: skills, databases and agents share the rule. */
export function SlugField({ optional = false }: { optional?: boolean } = {}): PropertyDecorator {
  const description = 'Lowercase letters, numbers and single hyphens, up to 64 characters.';
  return applyDecorators(
    optional
      ? ApiPropertyOptional({ type: String, maxLength: 64, pattern: SLUG_PATTERN.source, description })
      : ApiProperty({ type: String, maxLength: 64, pattern: SLUG_PATTERN.source, description }),
    ...(optional ? [ValidateIf((_object: object, value: unknown) => value !== undefined)] : []),
    IsString(),
    MaxLength(64),
    Matches(SLUG_PATTERN, { message: '$property must be lowercase letters, numbers and single hyphens' }),
  );
}

export function EnumField<T extends string>(
  values: readonly T[],
  { optional = false, description }: { optional?: boolean; description?: string } = {},
): PropertyDecorator {
  return applyDecorators(
    optional
      ? ApiPropertyOptional({ enum: values, description })
      : ApiProperty({ enum: values, description }),
    ...(optional ? [ValidateIf((_object: object, value: unknown) => value !== undefined)] : []),
    IsIn(values as T[], { message: `$property must be one of: ${values.join(', ')}` }),
  );
}

/** An integer that may be omitted; query strings are converted, so `limit=20` is the number 20. */
export function OptionalIntField({
  min,
  max,
  description,
  defaultValue,
}: {
  min: number;
  max: number;
  description?: string;
  defaultValue?: number;
}): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: 'integer', minimum: min, maximum: max, description, default: defaultValue }),
    IsOptional(),
    Type(() => Number),
    IsInt(),
    Min(min),
    Max(max),
  );
}

/** `2026-11-21T10:31:57.764Z`, `2026-11-21T11:31:57+01:00`: a date, a time and a zone. */
const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * An ISO 8601 date-time with a time zone that may be omitted. A bare date or a local time would name
 * a different instant on every server, so both are refused.
 */
export function OptionalDateTimeField(description: string): PropertyDecorator {
  const message =
    '$property must be an ISO 8601 date-time with a time zone, such as 2026-11-21T10:31:57.764Z';
  return applyDecorators(
    ApiPropertyOptional({ type: String, format: 'date-time', description }),
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    IsString({ message }),
    Matches(DATE_TIME_PATTERN, { message }),
    IsISO8601({ strict: true }, { message }),
  );
}
