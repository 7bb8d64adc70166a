import { DomainException, type Page } from '#common';
import {
  canonicalTimeZone,
  type CheckDraftReply,
  type CheckDraftRequest,
  type CreateWorkflowDto,
  DEFAULT_TIME_ZONE,
  type Diagram,
  type DiagramIssue,
  MCP_TOOLS_MAX,
  mcpEntryTrigger,
  type McpWorkflowToolsReply,
  diagramShapeIssues,
  type PageQueryDto,
  type Principal,
  type PublishWorkflowDto,
  type RunTarget,
  type RunTargetRequest,
  type RunTargetsReply,
  type RunTargetsRequest,
  type UpdateWorkflowDto,
  validateDiagram,
  type WorkflowDetailDto,
  type WorkflowDto,
  type WorkflowSummaryDto,
  type WorkflowVersionDetailDto,
  type WorkflowVersionDto,
  type NamesReply,
  type WorkflowOverview,
} from '#contracts';
import { isId, mapPage } from '#persistence';
import { Inject, Injectable } from '@nestjs/common';

import { audit } from '../audit/workflow-audit.js';
import { CatalogClient } from '../peers/catalog.client.js';
import { RunnerClient } from '../peers/runner.client.js';
import { SchedulesService } from '../schedules/schedules.service.js';
import type { Transaction } from '../transaction.js';
import { logger } from '../workflow.logger.js';
import { PUBLISH_CHECKS, type PublishCheck, type PublishedWorkflow } from './publish-check.js';
import { TriggerActivation } from './trigger-activation.js';
import { WorkflowDeletion } from './workflow-deletion.service.js';
import {
  toRunTarget,
  toWorkflowDetailDto,
  toWorkflowDto,
  toWorkflowSummaryDto,
  toWorkflowVersionDto,
} from './workflow-dto.util.js';
import type { WorkflowVersionRecord } from './workflow-version.mapper.js';
import { WorkflowVersionRepository } from './workflow-version.repository.js';
import type { WorkflowRecord } from './workflow.mapper.js';
import { WorkflowRepository } from './workflow.repository.js';

/** How long a pause waits for the runner to end the runs held for a due time (well under the gateway's 10 s). */
const PAUSE_RUNNER_WAIT_MS = 3_000;

/**
 * The diagrams one `runTargets` reply carries, at most: the rest are asked for one by one, so the
 * reply stays within NATS' default 1 MiB message.
 */
export const RUN_TARGETS_DIAGRAM_BYTES = 512 * 1024;

/** A workflow id no workflow has, asked in place of an id that is not one. */
const NO_ID = '00000000-0000-0000-0000-000000000000';

const EMPTY_DIAGRAM: Diagram = { nodes: [], edges: [] };

@Injectable()
export class WorkflowsService {
  constructor(
    private readonly workflows: WorkflowRepository,
    private readonly versions: WorkflowVersionRepository,
    private readonly schedules: SchedulesService,
    private readonly catalog: CatalogClient,
    private readonly deletion: WorkflowDeletion,
    private readonly triggers: TriggerActivation,
    private readonly runner: RunnerClient,
    @Inject(PUBLISH_CHECKS) private readonly publishChecks: PublishCheck[],
  ) {}

  overview(principal: Principal): Promise<WorkflowOverview> {
    return this.workflows.counts(principal.organizationId);
  }

  async names(principal: Principal, ids: string[]): Promise<NamesReply> {
    return { names: await this.workflows.names(principal.organizationId, ids) };
  }

  async list(
    principal: Principal,
    projectId: string,
    query: PageQueryDto,
  ): Promise<Page<WorkflowSummaryDto>> {
    await this.catalog.assertProjectExists(principal, projectId);
    return mapPage(
      await this.workflows.list(principal.organizationId, projectId, query),
      toWorkflowSummaryDto,
    );
  }

  async create(principal: Principal, projectId: string, input: CreateWorkflowDto): Promise<WorkflowDto> {
    const diagram = input.diagram ?? EMPTY_DIAGRAM;
    assertDiagramShape(diagram);
    await this.catalog.assertProjectExists(principal, projectId);
    // Null when the project was deleted since catalog answered.
    const workflow = await this.workflows.insert(
      {
        organizationId: principal.organizationId,
        projectId,
        name: input.name,
        description: input.description ?? null,
        diagram,
        createdBy: principal.userId,
      },
      principal,
    );
    if (!workflow) throw DomainException.notFound('project', projectId);
    return toWorkflowDto(workflow);
  }

  async get(principal: Principal, id: string): Promise<WorkflowDetailDto> {
    const workflow = await this.findOwned(principal, id);
    return toWorkflowDetailDto(workflow, await this.schedules.nextRunAt(workflow.id));
  }

  /** Saves the draft; the live version changes only on publish. */
  async update(principal: Principal, id: string, input: UpdateWorkflowDto): Promise<WorkflowDto> {
    if (input.diagram !== undefined) assertDiagramShape(input.diagram);
    const changes = {
      ...(input.name === undefined ? {} : { name: input.name }),
      ...(input.description === undefined ? {} : { description: input.description }),
      ...(input.diagram === undefined ? {} : { diagram: input.diagram }),
    };
    const workflow = isId(id)
      ? await this.workflows.transaction(async (trx) => {
          const updated = await this.workflows.update(principal.organizationId, id, changes, trx);
          if (updated && Object.keys(changes).length > 0) {
            await audit.record(trx, principal, {
              action: 'workflow.updated',
              resource: { type: 'workflow', id, name: updated.name },
              details: { fields: Object.keys(changes) },
            });
          }
          return updated;
        })
      : null;
    if (!workflow) throw DomainException.notFound('workflow', id);
    return toWorkflowDto(workflow);
  }

  /** Answers once the workflow is gone for everyone; its runs are terminated before, or soon after. */
  async delete(principal: Principal, id: string): Promise<{ deleted: true }> {
    if (!isId(id) || !(await this.deletion.deleteOne(principal, id))) {
      throw DomainException.notFound('workflow', id);
    }
    return { deleted: true };
  }

  /** Catalog asks this once it has marked a project deleted; asking again is harmless. */
  async deleteForProject(principal: Principal, projectId: string): Promise<{ deleted: number }> {
    const deleted = isId(projectId)
      ? await this.deletion.deleteProject(principal.organizationId, projectId)
      : 0;
    return { deleted };
  }

  /**
   * Freezes the draft as the next version and makes it live. The number is taken under the
   * workflow's row lock, so two publishes that race get consecutive numbers; the unique
   * (workflow, number) constraint stands behind it.
   */
  async publish(principal: Principal, id: string, input: PublishWorkflowDto): Promise<WorkflowVersionDto> {
    const timeZone = canonicalTimeZone(input.timeZone ?? DEFAULT_TIME_ZONE);
    if (timeZone === null) {
      throw DomainException.invalidRequest([
        { path: 'timeZone', message: 'timeZone must be an IANA time zone' },
      ]);
    }
    const workflow = await this.findOwned(principal, id);
    // The draft read here is the one validated and the one frozen, even if a PATCH lands meanwhile.
    const diagram = workflow.diagram;
    await this.assertPublishable(principal, diagram, { id });
    if (workflow.pausedAt === null) await this.triggers.activate(principal, { workflowId: id, diagram });
    const version = await this.workflows.transaction(async (trx) => {
      const locked = await this.lockOwned(principal, id, trx);
      const number = (locked.publishedVersion ?? 0) + 1;
      const created = await this.versions.insert(
        { workflowId: id, number, timeZone, diagram, publishedBy: principal.userId },
        trx,
      );
      await this.workflows.update(principal.organizationId, id, { publishedVersion: number }, trx);
      if (locked.pausedAt === null) {
        const live = {
          workflowId: id,
          organizationId: principal.organizationId,
          version: number,
          timeZone,
          diagram,
        };
        await this.schedules.rebuild(live, trx);
      } else {
        await this.schedules.clear(id, trx);
      }
      await audit.record(trx, principal, {
        action: 'workflow.published',
        resource: { type: 'workflow', id, name: locked.name },
        details: { version: number, timeZone },
      });
      return created;
    });
    return toWorkflowVersionDto(version);
  }

  /** Schedule and app event triggers stop; manual and API runs still work. Pausing twice changes nothing. */
  async pause(principal: Principal, id: string): Promise<WorkflowDto> {
    const { workflow, paused } = await this.workflows.transaction(async (trx) => {
      const locked = await this.lockOwned(principal, id, trx);
      if (locked.pausedAt !== null) return { workflow: locked, paused: false };
      await this.schedules.clear(id, trx);
      const updated = await this.workflows.update(
        principal.organizationId,
        id,
        { pausedAt: new Date() },
        trx,
      );
      await audit.record(trx, principal, {
        action: 'workflow.paused',
        resource: { type: 'workflow', id, name: locked.name },
      });
      return { workflow: updated ?? locked, paused: true };
    });
    if (paused) {
      await this.triggers.deactivate(principal, id);
      await this.dropScheduledRuns(principal, id);
    }
    return toWorkflowDto(workflow);
  }

  /**
   * A due time within `SCHEDULE_LEAD_MS` may already be a run held for its time (docs/workflows.md):
   * the runner ends it, so a paused workflow starts no scheduled run. Asked after the pause committed,
   * never inside it. The pause stands if the runner cannot be reached; such a run then starts at its
   * time, as one started a moment before the pause would.
   */
  private async dropScheduledRuns(principal: Principal, id: string): Promise<void> {
    try {
      await this.runner.terminateScheduledRunsOf(principal, [id], PAUSE_RUNNER_WAIT_MS);
    } catch (error) {
      logger.warn({ workflowId: id, err: error }, 'the runs held for a due time were not ended at pause');
    }
  }

  /** Turns the live version's triggers back on; nothing that fell due while paused runs. */
  async resume(principal: Principal, id: string): Promise<WorkflowDto> {
    const workflow = await this.findOwned(principal, id);
    if (workflow.pausedAt === null) return toWorkflowDto(workflow);
    const live = await this.liveVersion(workflow);
    if (live) await this.triggers.activate(principal, { workflowId: id, diagram: live.diagram });
    const resumed = await this.workflows.transaction(async (trx) => {
      const locked = await this.lockOwned(principal, id, trx);
      if (locked.pausedAt === null) return locked;
      // Read again under the lock: a publish may have made another version live meanwhile.
      const current = await this.liveVersion(locked, trx);
      if (current) {
        await this.schedules.rebuild(
          {
            workflowId: id,
            organizationId: principal.organizationId,
            version: current.number,
            timeZone: current.timeZone,
            diagram: current.diagram,
          },
          trx,
        );
      }
      await audit.record(trx, principal, {
        action: 'workflow.resumed',
        resource: { type: 'workflow', id, name: locked.name },
        details: current ? { version: current.number } : {},
      });
      return (await this.workflows.update(principal.organizationId, id, { pausedAt: null }, trx)) ?? locked;
    });
    return toWorkflowDto(resumed);
  }

  async listVersions(
    principal: Principal,
    id: string,
    query: PageQueryDto,
  ): Promise<Page<WorkflowVersionDto>> {
    const workflow = await this.findOwned(principal, id);
    return mapPage(await this.versions.list(workflow.id, query), toWorkflowVersionDto);
  }

  /** A published version with its frozen diagram (the console's read-only view). */
  async getVersion(principal: Principal, id: string, number: number): Promise<WorkflowVersionDetailDto> {
    const workflow = await this.findOwned(principal, id);
    const version = await this.versions.find(workflow.id, number);
    if (!version) throw new DomainException('not_found', `The workflow has no version ${number}.`);
    return { ...toWorkflowVersionDto(version), diagram: version.diagram };
  }

  /**
   * What a run executes: the live version, or the draft (in the live version's time zone). One
   * query; the live version's diagram is left out when the caller holds it (`knownVersion`).
   */
  async runTarget(principal: Principal, request: RunTargetRequest): Promise<RunTarget> {
    const id = String(request?.workflowId);
    const workflow = isId(id)
      ? await this.workflows.findRunTarget(
          principal.organizationId,
          id,
          request.draft === true,
          request.knownVersion ?? null,
        )
      : null;
    if (!workflow) throw DomainException.notFound('workflow', id);
    return toRunTarget(workflow, request.draft === true);
  }

  /**
   * `runTarget` for many published workflows at once, each answered in its place: its target, or
   * the code `runTarget` would have thrown. Diagrams fill at most `RUN_TARGETS_DIAGRAM_BYTES` of it.
   */
  async runTargets(principal: Principal, { workflows }: RunTargetsRequest): Promise<RunTargetsReply> {
    // Ids that are not ids are asked as none: they find nothing, like a workflow deleted.
    const asked = workflows.map(({ workflowId, knownVersion }) => ({
      workflowId: isId(workflowId) ? workflowId : NO_ID,
      knownVersion,
    }));
    const found = await this.workflows.findRunTargets(
      principal.organizationId,
      asked,
      RUN_TARGETS_DIAGRAM_BYTES,
    );
    return {
      targets: workflows.map(({ workflowId }, index) => {
        const row = found[index];
        try {
          if (!row) throw DomainException.notFound('workflow', workflowId);
          return { ...toRunTarget(row.target, false), diagramLeftOut: row.diagramLeftOut };
        } catch (error) {
          if (
            !(error instanceof DomainException) ||
            (error.code !== 'workflow_not_found' && error.code !== 'not_published')
          ) {
            throw error;
          }
          return { workflowId, error: { code: error.code, message: error.message } };
        }
      }),
    };
  }

  /** The workflows `/mcp` offers as tools (docs/mcp.md, "Workflows as tools"). */
  async mcpTools(principal: Principal): Promise<McpWorkflowToolsReply> {
    const rows = await this.workflows.mcpTools(principal.organizationId, MCP_TOOLS_MAX);
    return {
      tools: rows.flatMap((row) => {
        const trigger = mcpEntryTrigger(row.diagram);
        if (!trigger) return [];
        const inputSchema = trigger.data.properties.inputSchema;
        return [
          {
            workflowId: row.id,
            name: row.name,
            description: row.description,
            triggerNodeId: trigger.id,
            inputSchema:
              typeof inputSchema === 'object' && inputSchema !== null
                ? (inputSchema as Record<string, unknown>)
                : null,
          },
        ];
      }),
    };
  }

  /**
   * The publish rules without publishing (`WorkflowSubjects.checkDraft`): the assistant's proposals.
   * A named workflow must be the caller's; without one, the diagram is checked as a new workflow's.
   */
  async checkDraft(principal: Principal, request: CheckDraftRequest): Promise<CheckDraftReply> {
    const published = request.workflowId ? await this.findOwned(principal, request.workflowId) : { id: '' };
    return { issues: await this.publishIssues(principal, request.diagram, published) };
  }

  private async assertPublishable(
    principal: Principal,
    diagram: Diagram,
    published: PublishedWorkflow,
  ): Promise<void> {
    const issues = await this.publishIssues(principal, diagram, published);
    if (issues.length > 0) {
      throw new DomainException(
        'invalid_workflow',
        `The workflow cannot be published: ${issues.length === 1 ? 'one problem' : `${issues.length} problems`} (see details.issues).`,
        { issues },
      );
    }
  }

  private async publishIssues(
    principal: Principal,
    diagram: Diagram,
    published: PublishedWorkflow,
  ): Promise<DiagramIssue[]> {
    const issues = validateDiagram(diagram);
    // Checks against other services read nodes as their schema says; a malformed diagram is answered
    // with its own issues first, rather than also with what follows from them.
    if (issues.length > 0) return issues;
    const checked = await Promise.all(
      this.publishChecks.map((rule) => rule.check(principal, diagram, published)),
    );
    return checked.flat();
  }

  private liveVersion(workflow: WorkflowRecord, trx?: Transaction): Promise<WorkflowVersionRecord | null> {
    if (workflow.publishedVersion === null) return Promise.resolve(null);
    return this.versions.find(workflow.id, workflow.publishedVersion, trx);
  }

  private async findOwned(principal: Principal, id: string): Promise<WorkflowRecord> {
    const workflow = isId(id) ? await this.workflows.find(principal.organizationId, id) : null;
    if (!workflow) throw DomainException.notFound('workflow', id);
    return workflow;
  }

  private async lockOwned(principal: Principal, id: string, trx: Transaction): Promise<WorkflowRecord> {
    const workflow = isId(id) ? await this.workflows.findForUpdate(principal.organizationId, id, trx) : null;
    if (!workflow) throw DomainException.notFound('workflow', id);
    return workflow;
  }
}

/** Drafts may be unfinished, but they keep the contract's shape; each problem is named by path. */
function assertDiagramShape(diagram: unknown): void {
  const issues = diagramShapeIssues(diagram);
  if (issues.length > 0) {
    throw DomainException.invalidRequest(
      issues.map((issue) => ({ ...issue, path: issue.path ? `diagram.${issue.path}` : 'diagram' })),
      'The diagram does not have the shape of a diagram (see details.issues).',
    );
  }
}
