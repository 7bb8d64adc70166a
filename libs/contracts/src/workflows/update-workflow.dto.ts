import { NullableTextField, OptionalTextField } from '../common/field.decorators.js';
import type { Diagram } from './diagram.js';
import { DiagramField } from './diagram-field.decorator.js';

/** Changes only the fields sent; the live version changes only on publish. */
export class UpdateWorkflowDto {
  @OptionalTextField({ min: 1, max: 100 })
  name?: string;

  @NullableTextField({ max: 500 })
  description?: string | null;

  @DiagramField({ optional: true })
  diagram?: Diagram;
}
