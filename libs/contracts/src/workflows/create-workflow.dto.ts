import { NullableTextField, TextField } from '../common/field.decorators.js';
import type { Diagram } from './diagram.js';
import { DiagramField } from './diagram-field.decorator.js';

export class CreateWorkflowDto {
  @TextField({ min: 1, max: 100, example: 'Lead follow-up' })
  name!: string;

  @NullableTextField({ max: 500 })
  description?: string | null;

  /** The draft; an empty diagram when omitted. */
  @DiagramField({ optional: true })
  diagram?: Diagram;
}
