import { Type } from 'class-transformer';
import { IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

import { PageQueryDto } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { CreateWorkflowDto } from './create-workflow.dto.js';
import type { Diagram } from './diagram.js';
import type { DiagramIssue } from './validate-diagram.js';

export class ProjectScopedRequest {
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  projectId!: string;
}

/** `WorkflowSubjects.list`: a page of a project's workflows. */
export class ListWorkflowsRequest extends ProjectScopedRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => PageQueryDto)
  query!: PageQueryDto;
}

/** `WorkflowSubjects.create`: a new workflow in a project. */
export class CreateWorkflowRequest extends ProjectScopedRequest {
  @IsObject()
  @ValidateNested()
  @Type(() => CreateWorkflowDto)
  body!: CreateWorkflowDto;
}

/**
 * `WorkflowSubjects.checkDraft`: would this diagram publish? The publish rules without publishing,
 * for the assistant's proposals. `workflowId` names the workflow it would become the draft of (a
 * workflow may not call itself, nor be its own error workflow); without it, a new workflow.
 */
export class CheckDraftRequest {
  @IsOptional()
  @IsString()
  @MaxLength(MESSAGE_ID_MAX_LENGTH)
  workflowId?: string;

  /** Only "an object" here: the shape is the first of the publish rules, answered as issues. */
  @IsObject()
  diagram!: Diagram;
}

export interface CheckDraftReply {
  issues: DiagramIssue[];
}
