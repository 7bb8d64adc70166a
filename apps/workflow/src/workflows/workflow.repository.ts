import type { Page } from '#common';
import {
  type AuditCaller,
  InjectKysely,
  isId,
  keysetPage,
  mapPage,
  newId,
  type PageRequest,
  preparedQuery,
} from '#persistence';
import type { Diagram } from '#contracts';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { audit } from '../audit/workflow-audit.js';
import type { DB } from '../workflow.tables.js';

import {
  type NewWorkflow,
  type RunTargetRecord,
  type RunTargetRow,
  toRunTargetRecord,
  toWorkflowInsert,
  toWorkflowRecord,
  toWorkflowUpdate,
  type WorkflowChanges,
  type WorkflowRecord,
} from './workflow.mapper.js';
import { runTargetStatement } from './workflow.statements.js';

/** A deleted workflow a purge sweep has taken. */
export interface DeletedWorkflow {
  id: string;
  organizationId: string;
}

@Injectable()
export class WorkflowRepository {
  private readonly runTarget;

  constructor(@InjectKysely() private readonly db: Kysely<DB>) {
    this.runTarget = runTargetStatement(db);
  }

  transaction<T>(work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  /**
   * Inserts the workflow unless its project was deleted (null). The project's lock is shared with
   * other creates and exclusive against the project's deletion (`markProjectDeleted`): either this
   * insert commits first and the deletion marks the workflow, or the deletion does and the look-up,
   * a statement after the lock, sees it.
   */
  insert(workflow: NewWorkflow, caller: AuditCaller): Promise<WorkflowRecord | null> {
    return this.db.transaction().execute(async (trx) => {
      await lockProject(trx, workflow.projectId, 'shared');
      const deleted = await trx
        .selectFrom('workflow.deleted_projects')
        .select((eb) => eb.lit(1).as('deleted'))
        .where('organization_id', '=', workflow.organizationId)
        .where('project_id', '=', workflow.projectId)
        .executeTakeFirst();
      if (deleted) return null;
      const row = await trx
        .insertInto('workflow.workflows')
        .values(toWorkflowInsert(newId(), workflow))
        .returningAll()
        .executeTakeFirstOrThrow();
      await audit.record(trx, caller, {
        action: 'workflow.created',
        resource: { type: 'workflow', id: row.id, name: row.name },
        details: { projectId: row.project_id },
      });
      return toWorkflowRecord(row);
    });
  }

  async find(organizationId: string, id: string, db: Kysely<DB> = this.db): Promise<WorkflowRecord | null> {
    const row = await db
      .selectFrom('workflow.workflows')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row ? toWorkflowRecord(row) : null;
  }

  /**
   * The workflow with its live version in one round trip, the hot read of every run start, prepared
   * once per connection. The diagram is the draft's with `draft`, else the live version's unless that
   * is `knownVersion`.
   */
  async findRunTarget(
    organizationId: string,
    id: string,
    draft: boolean,
    knownVersion: number | null,
  ): Promise<RunTargetRecord | null> {
    const query = this.runTarget.bind({ draft, knownVersion, organizationId, id });
    const [row] = await preparedQuery(this.db, 'workflow.workflows.run-target', query);
    return row ? toRunTargetRecord(row) : null;
  }

  /**
   * The targets of many workflows of an organization in one statement, as `findRunTarget` reads each
   * with `draft` false: a live version's diagram is left out when it is the `knownVersion` asked
   * with, and also once the diagrams already in the answer reach `diagramBudgetBytes` (then
   * `diagramLeftOut`), so the reply stays within a NATS message. Answered in the order asked, null
   * for a workflow not found.
   */
  async findRunTargets(
    organizationId: string,
    workflows: ReadonlyArray<{ workflowId: string; knownVersion?: number }>,
    diagramBudgetBytes: number,
  ): Promise<Array<{ target: RunTargetRecord; diagramLeftOut: boolean } | null>> {
    const ids = workflows.map(({ workflowId }) => workflowId);
    const known = workflows.map(({ knownVersion }) => knownVersion ?? null);
    const { rows } = await sql<RunTargetRow & { wanted: boolean; place: string }>`
      SELECT id, name, project_id, paused_at, published_version, time_zone, wanted, place,
             CASE WHEN wanted AND sum(bytes) OVER (ORDER BY place) <= ${diagramBudgetBytes}
                  THEN diagram END AS diagram
        FROM (SELECT w.id, w.name, w.project_id, w.paused_at, w.published_version, v.time_zone,
                     v.diagram, k.place, wanted,
                     CASE WHEN wanted THEN octet_length(v.diagram::text) ELSE 0 END AS bytes
                FROM unnest(${ids}::uuid[], ${known}::integer[]) WITH ORDINALITY AS k(id, known, place)
                JOIN workflow.workflows w ON w.id = k.id
                LEFT JOIN workflow.versions v ON v.workflow_id = w.id AND v.number = w.published_version
               CROSS JOIN LATERAL (
                 SELECT v.diagram IS NOT NULL AND w.published_version IS DISTINCT FROM k.known AS wanted) x
               WHERE w.organization_id = ${organizationId} AND w.deleted_at IS NULL) t
    `.execute(this.db);
    const targets = new Array<{ target: RunTargetRecord; diagramLeftOut: boolean } | null>(
      workflows.length,
    ).fill(null);
    for (const { wanted, place, ...row } of rows) {
      targets[Number(place) - 1] = {
        target: toRunTargetRecord(row),
        diagramLeftOut: wanted && row.diagram === null,
      };
    }
    return targets;
  }

  /** Reads the row and holds it until the transaction ends: publish, pause and resume take turns. */
  async findForUpdate(organizationId: string, id: string, trx: Kysely<DB>): Promise<WorkflowRecord | null> {
    const row = await trx
      .selectFrom('workflow.workflows')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    return row ? toWorkflowRecord(row) : null;
  }

  /**
   * The published, not paused workflows whose live version opts in to `/mcp`, by name, at most
   * `limit`: each with its live diagram, for the tool's trigger and input schema.
   */
  async mcpTools(
    organizationId: string,
    limit: number,
  ): Promise<Array<{ id: string; name: string; description: string | null; diagram: Diagram }>> {
    return this.db
      .selectFrom('workflow.workflows as w')
      .innerJoin('workflow.versions as v', (join) =>
        join.onRef('v.workflow_id', '=', 'w.id').onRef('v.number', '=', 'w.published_version'),
      )
      .select(['w.id', 'w.name', 'w.description', 'v.diagram'])
      .where('w.organization_id', '=', organizationId)
      .where('w.deleted_at', 'is', null)
      .where('w.paused_at', 'is', null)
      .where(sql<boolean>`(v.diagram::jsonb -> 'settings' -> 'mcp' ->> 'enabled') = 'true'`)
      .orderBy('w.name')
      .orderBy('w.id')
      .limit(limit)
      .execute();
  }

  async list(organizationId: string, projectId: string, page: PageRequest): Promise<Page<WorkflowRecord>> {
    const rows = await keysetPage(page, ({ after, limit }) => {
      let query = this.db
        .selectFrom('workflow.workflows')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('project_id', '=', projectId)
        .where('deleted_at', 'is', null);
      if (after !== undefined) query = query.where('id', '<', after);
      return query.orderBy('id', 'desc').limit(limit).execute();
    });
    return mapPage(rows, toWorkflowRecord);
  }

  /** Workflows not deleted, and those of them with a live version, from the organization's index. */
  async counts(organizationId: string): Promise<{ workflows: number; published: number }> {
    const row = await this.db
      .selectFrom('workflow.workflows')
      .select((eb) => [
        eb.cast<number>(eb.fn.countAll(), 'integer').as('workflows'),
        eb.cast<number>(eb.fn.count('published_version'), 'integer').as('published'),
      ])
      .where('organization_id', '=', organizationId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row ?? { workflows: 0, published: 0 };
  }

  /** The current names of those of `ids` that exist and are not deleted. */
  async names(organizationId: string, ids: readonly string[]): Promise<Record<string, string>> {
    const valid = ids.filter(isId);
    if (valid.length === 0) return {};
    const rows = await this.db
      .selectFrom('workflow.workflows')
      .select(['id', 'name'])
      .where('organization_id', '=', organizationId)
      .where((eb) => eb('id', '=', eb.fn.any(sql<string[]>`${valid}::uuid[]`)))
      .where('deleted_at', 'is', null)
      .execute();
    return Object.fromEntries(rows.map((row) => [row.id, row.name]));
  }

  /**
   * Writes only the columns in `changes` (and `updated_at`), so a rename cannot undo a publish or a
   * pause that committed after the workflow was read.
   */
  async update(
    organizationId: string,
    id: string,
    changes: WorkflowChanges,
    db: Kysely<DB> = this.db,
  ): Promise<WorkflowRecord | null> {
    const columns = toWorkflowUpdate(changes);
    if (Object.keys(columns).length === 0) return this.find(organizationId, id, db);
    const row = await db
      .updateTable('workflow.workflows')
      .set({ ...columns, updated_at: sql<Date>`now()` })
      .where('organization_id', '=', organizationId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row ? toWorkflowRecord(row) : null;
  }

  /**
   * Marks the workflow deleted, with its purge leased to the caller for `leaseMs`; false when there
   * is no such workflow (or it is already deleted).
   */
  async markDeleted(
    organizationId: string,
    id: string,
    leaseMs: number,
    caller: AuditCaller,
  ): Promise<boolean> {
    const marked = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .updateTable('workflow.workflows')
          .set({
            deleted_at: sql<Date>`now()`,
            purge_after: sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`,
          })
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .returning(['id', 'name', 'project_id'])
          .executeTakeFirst(),
      (row) => ({
        action: 'workflow.deleted',
        resource: { type: 'workflow', id: row.id, name: row.name },
        details: { projectId: row.project_id },
      }),
    );
    return marked !== undefined;
  }

  /**
   * Remembers the project as deleted and marks all its workflows deleted, due for the purge sweep at
   * once; answers how many were marked. Idempotent. The project's lock is taken exclusively, so no
   * create of a workflow in it is half done (see `insert`).
   */
  markProjectDeleted(organizationId: string, projectId: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId, 'exclusive');
      await trx
        .insertInto('workflow.deleted_projects')
        .values({ organization_id: organizationId, project_id: projectId })
        .onConflict((conflict) => conflict.doNothing())
        .execute();
      const result = await trx
        .updateTable('workflow.workflows')
        .set({ deleted_at: sql<Date>`now()`, purge_after: sql<Date>`now()` })
        .where('organization_id', '=', organizationId)
        .where('project_id', '=', projectId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    });
  }

  /**
   * Takes up to `limit` deleted workflows whose purge is due (never tried, or a try that failed or
   * died), leasing each for `leaseMs`. The claim commits before the caller asks the runner anything;
   * SKIP LOCKED lets every replica's sweep take its own rows.
   */
  async claimDeleted(limit: number, leaseMs: number): Promise<DeletedWorkflow[]> {
    const due = this.db
      .selectFrom('workflow.workflows')
      .select('id')
      .where('deleted_at', 'is not', null)
      .where('purge_after', '<=', sql<Date>`now()`)
      .orderBy('purge_after')
      .limit(limit)
      .forUpdate()
      .skipLocked();
    const rows = await this.db
      .updateTable('workflow.workflows as w')
      .set({ purge_after: sql<Date>`now() + make_interval(secs => ${leaseMs} / 1000.0)` })
      .from(due.as('due'))
      .whereRef('w.id', '=', 'due.id')
      .returning(['w.id', 'w.organization_id'])
      .execute();
    return rows.map((row) => ({ id: row.id, organizationId: row.organization_id }));
  }

  /** Removes deleted workflows with their versions and schedules (foreign keys cascade). */
  async purge(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db
      .deleteFrom('workflow.workflows')
      .where('id', 'in', ids)
      .where('deleted_at', 'is not', null)
      .execute();
  }
}

/** The lock a project's workflow creates share and its deletion takes alone, until the transaction ends. */
async function lockProject(trx: Kysely<DB>, projectId: string, mode: 'shared' | 'exclusive'): Promise<void> {
  const lock = mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
  await trx
    .selectNoFrom((eb) =>
      eb.fn(lock, [eb.fn('hashtext', [eb.val(`project-workflows:${projectId}`)])]).as('locked'),
    )
    .execute();
}
