import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, ValidateIf } from 'class-validator';

/** The `Diagram` component that `workflowOpenApiSchemas()` adds to the OpenAPI document. */
const DIAGRAM_REF = { allOf: [{ $ref: '#/components/schemas/Diagram' }] };

/**
 * A diagram in a request. Only "an object" is checked here: the workflow service checks the
 * contract's shape and names each problem by path. No class is bound to it, so the validation pipe
 * neither transforms nor strips it and every extra layout property reaches the service.
 */
export function DiagramField({ optional = false }: { optional?: boolean } = {}): PropertyDecorator {
  return applyDecorators(
    optional
      ? ApiPropertyOptional({ ...DIAGRAM_REF, description: 'Replaces the draft.' })
      : ApiProperty(DIAGRAM_REF),
    ...(optional ? [ValidateIf((_object: object, value: unknown) => value !== undefined)] : []),
    IsObject({ message: '$property must be an object with nodes and edges' }),
  );
}

/** A diagram in a response. */
export function DiagramProperty(description?: string): PropertyDecorator {
  return ApiProperty({ ...DIAGRAM_REF, description });
}
