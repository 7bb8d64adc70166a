import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

import type { Diagram } from '../workflows/diagram.js';
import { DiagramProperty } from '../workflows/diagram-field.decorator.js';
import { RUN_HELD_BY, type RunHeldBy } from '../workflows/flow-control.js';
import { ErrorWorkflowOutcomeDto } from './error-workflow.dto.js';
import { RunStepDto } from './run-step.dto.js';
import { WorkflowRunSummaryDto } from './workflow-run-summary.dto.js';

export class WorkflowRunDto extends WorkflowRunSummaryDto {
  @ApiProperty({ description: 'The trigger payload.' })
  input!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The text of the nodes the run ended on, joined with a blank line; set when complete.',
  })
  reply!: string | null;

  @ApiProperty({ type: String, nullable: true, description: "The failing step's error when `errored`." })
  error!: string | null;

  @ApiProperty({ type: [RunStepDto], description: 'The nodes reached, in start order.' })
  steps!: RunStepDto[];

  @DiagramProperty('The diagram as it ran.')
  diagram!: Diagram;

  @ApiPropertyOptional({
    type: String,
    description:
      'Extension: on a rerun (`POST /runs/{id}/rerun`), the run it reruns. Absent on every other run.',
  })
  rerunOf?: string;

  @ApiPropertyOptional({
    enum: RUN_HELD_BY,
    description:
      "Extension: on a `queued` run not let through yet, the gate it waits at (docs/flow-control.md): `schedule`, a scheduled run written before its due time and let through at that time; its workflow's `debounce`, `throttle` or `concurrency` settings; or `share`, its organization's share of the runners while it has a backlog. Absent on every other run.",
  })
  heldBy?: RunHeldBy;

  @ApiPropertyOptional({
    type: String,
    description:
      "Extension: with `heldBy` `debounce`, `throttle` or `concurrency`, the key the run is counted under (the setting's `key` rendered for this run; empty without one).",
  })
  heldKey?: string;

  @ApiPropertyOptional({
    type: String,
    description:
      'Extension: on a run started as its workflow\'s error workflow, the failed run it handles (docs/workflows.md, "Error workflows"). Such a run starts no error workflow when it fails itself. Absent on every other run.',
  })
  errorOfRunId?: string;

  @ApiPropertyOptional({
    type: ErrorWorkflowOutcomeDto,
    description:
      'Extension: on an `errored` run of a published version whose diagram names `settings.errorWorkflowId`, what starting that error workflow came to: the run it started, or why none could start. Absent on every other run, and until the runner has handled the failure (usually within a second of it).',
  })
  errorWorkflow?: ErrorWorkflowOutcomeDto;

  @ApiPropertyOptional({
    type: String,
    description:
      "Extension: the id of the run's OpenTelemetry trace (32 hex digits), in which every step's span " +
      'lies (docs/tracing.md). Absent when the run has no trace (tracing was off when it started).',
  })
  traceId?: string;

  @ApiPropertyOptional({
    type: Boolean,
    enum: [true],
    description:
      "Extension: present (`true`) when the operator's retention setting trimmed the run's `diagram` (docs/retention.md): its nodes keep `id`, `position`, `data.type` and their label (`data.label`, or a trigger's `label` property), every other property dropped (`data.properties` is `{}` or `{label}`), and its edges stay whole; nothing else of the diagram stays. Absent on every run whose diagram is kept in full.",
  })
  diagramTrimmed?: true;
}
