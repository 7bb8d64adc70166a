import type { Diagram } from './diagram.js';
import { DiagramProperty } from './diagram-field.decorator.js';
import { WorkflowVersionDto } from './workflow-version.dto.js';

/** A published version with the diagram it froze (extension beyond the contract, for the console). */
export class WorkflowVersionDetailDto extends WorkflowVersionDto {
  @DiagramProperty('The diagram as it was published; it never changes.')
  diagram!: Diagram;
}
