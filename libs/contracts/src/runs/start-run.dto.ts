import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, ValidateIf } from 'class-validator';

import { OptionalTextField } from '../common/field.decorators.js';
import { DIAGRAM_ID_MAX_LENGTH } from '../workflows/diagram.js';
import { RunInputField } from './run-input.js';

/** A boolean that may be omitted but, when sent, must be a JSON boolean. */
export function OptionalBooleanField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: Boolean, default: false, description }),
    ValidateIf((_object: object, value: unknown) => value !== undefined),
    IsBoolean(),
  );
}

/** The body of `POST /api/v1/workflows/{id}/runs`; every field may be omitted. */
export class StartRunDto {
  /**
   * The trigger payload. JSON text is readable in steps as `{{trigger.<path>}}`; other text reaches
   * steps as plain text (`{{trigger}}`).
   */
  @RunInputField({ optional: true })
  input?: string;

  @OptionalBooleanField('Run the draft rather than the live version.')
  draft?: boolean;

  /** Required when the workflow has more than one Trigger node. */
  @OptionalTextField({
    min: 1,
    max: DIAGRAM_ID_MAX_LENGTH,
    description: 'The Trigger node to start from; required when the workflow has more than one.',
  })
  triggerNodeId?: string;
}
