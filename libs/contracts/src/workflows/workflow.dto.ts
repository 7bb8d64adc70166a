import type { Diagram } from './diagram.js';
import { DiagramProperty } from './diagram-field.decorator.js';
import { WorkflowSummaryDto } from './workflow-summary.dto.js';

export class WorkflowDto extends WorkflowSummaryDto {
  @DiagramProperty('The draft.')
  diagram!: Diagram;
}
