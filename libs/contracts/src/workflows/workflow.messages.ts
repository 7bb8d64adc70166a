import { Type } from 'class-transformer';
import { IsObject, IsString, MaxLength, ValidateNested } from 'class-validator';

import { PageQueryDto } from '../common/page.dto.js';
import { MESSAGE_ID_MAX_LENGTH } from '../messaging/common-requests.js';
import { CreateWorkflowDto } from './create-workflow.dto.js';

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
