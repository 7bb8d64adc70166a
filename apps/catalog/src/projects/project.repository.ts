import type { Page } from '#common';
import {
  type AuditCaller,
  BatchedLookup,
  InjectKysely,
  isId,
  keysetPage,
  newId,
  type PageRequest,
  preparedQuery,
} from '#persistence';
import { Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';

import { BoundStatement, type Param } from '#persistence';
import { audit } from '../audit/catalog-audit.js';
import type { DB } from '../catalog.tables.js';
import {
  PROJECT_COLUMNS,
  type ProjectChanges,
  type ProjectRecord,
  projectUpdate,
  toProjectRecord,
} from './project.mapper.js';

export interface NewProject {
  organizationId: string;
  name: string;
  description: string | null;
  createdBy: string | null;
}

/** Which project a read asks for: ids are only unique within their organization's reads. */
interface ProjectKey {
  organizationId: string;
  id: string;
}

/** The projects a batch of reads asks for, as the statement joins them. */
interface WantedRow {
  organization_id: string;
  id: string;
}

/** The live projects among those a batch of reads asks for, in no order. */
function findStatement(db: Kysely<DB>) {
  return new BoundStatement((param: Param<{ organizationIds: string[]; ids: string[] }>) => {
    const organizationIds = param('organizationIds');
    const ids = param('ids');
    const wanted = sql<WantedRow>`unnest(${organizationIds}::text[], ${ids}::uuid[])`.as<'wanted'>(
      sql`wanted (organization_id, id)`,
    );
    return db
      .selectFrom('catalog.projects as p')
      .innerJoin(wanted, (join) =>
        join.onRef('p.organization_id', '=', 'wanted.organization_id').onRef('p.id', '=', 'wanted.id'),
      )
      .select(PROJECT_COLUMNS.map((column) => `p.${column}` as const))
      .where('p.deleted_at', 'is', null);
  });
}

const projectKeyOf = (organizationId: string, id: string) => `${organizationId}/${id}`;

/** A deleted project a sweep has taken. */
export interface DeletedProject {
  id: string;
  organizationId: string;
}

/** When the lease of a deletion attempt taken now runs out. */
const leaseEnd = (leaseMs: number) => sql<Date>`now() + make_interval(secs => ${leaseMs / 1000})`;

@Injectable()
export class ProjectRepository {
  private readonly findStatement: ReturnType<typeof findStatement>;

  constructor(@InjectKysely() private readonly db: Kysely<DB>) {
    this.findStatement = findStatement(db);
  }

  /**
   * Inserts the project unless the organization already has `limit`: the conditional increment of its
   * count row and the insert commit together, so concurrent creates cannot pass the limit.
   */
  insertWithinLimit(project: NewProject, limit: number, caller: AuditCaller): Promise<ProjectRecord | null> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('catalog.project_counts')
        .values({ organization_id: project.organizationId })
        .onConflict((conflict) => conflict.column('organization_id').doNothing())
        .execute();
      const counted = await trx
        .updateTable('catalog.project_counts')
        .set((eb) => ({ projects: eb('projects', '+', eb.lit(1)) }))
        .where('organization_id', '=', project.organizationId)
        .where('projects', '<', limit)
        .returning('projects')
        .executeTakeFirst();
      if (!counted) return null;
      const row = await trx
        .insertInto('catalog.projects')
        .values({
          id: newId(),
          organization_id: project.organizationId,
          name: project.name,
          description: project.description,
          created_by: project.createdBy,
        })
        .returning(PROJECT_COLUMNS)
        .executeTakeFirstOrThrow();
      await audit.record(trx, caller, {
        action: 'project.created',
        resource: { type: 'project', id: row.id, name: row.name },
      });
      return toProjectRecord(row);
    });
  }

  async count(organizationId: string): Promise<number> {
    const row = await this.db
      .selectFrom('catalog.project_counts')
      .select('projects')
      .where('organization_id', '=', organizationId)
      .executeTakeFirst();
    return row?.projects ?? 0;
  }

  /** The current names of those of `ids` that exist and are not deleted. */
  async names(organizationId: string, ids: readonly string[]): Promise<Record<string, string>> {
    const valid = ids.filter(isId);
    if (valid.length === 0) return {};
    const rows = await this.db
      .selectFrom('catalog.projects')
      .select(['id', 'name'])
      .where('organization_id', '=', organizationId)
      .where((eb) => eb('id', '=', eb.fn.any(eb.val(valid))))
      .where('deleted_at', 'is', null)
      .execute();
    return Object.fromEntries(rows.map((row) => [row.id, row.name]));
  }

  /**
   * The hottest read of the service. Reads that arrive together share one prepared statement
   * (`BatchedLookup`): under load a statement answers many of them, so each costs a fraction of a
   * Postgres round trip.
   */
  find(organizationId: string, id: string): Promise<ProjectRecord | null> {
    return this.lookup.load({ organizationId, id });
  }

  private readonly lookup = new BatchedLookup<ProjectKey, ProjectRecord>(
    async (keys) => {
      const statement = this.findStatement.bind({
        organizationIds: keys.map((key) => key.organizationId),
        ids: keys.map((key) => key.id),
      });
      const rows = await preparedQuery(this.db, 'catalog.projects.find', statement);
      const found = new Map(rows.map((row) => [projectKeyOf(row.organization_id, row.id), row]));
      return keys.map((key) => {
        const row = found.get(projectKeyOf(key.organizationId, key.id));
        return row ? toProjectRecord(row) : null;
      });
    },
    { concurrency: 2, maxBatchSize: 100 },
  );

  list(organizationId: string, page: PageRequest): Promise<Page<ProjectRecord>> {
    return keysetPage(page, async ({ after, limit }) => {
      const rows = await this.db
        .selectFrom('catalog.projects')
        .select(PROJECT_COLUMNS)
        .where('organization_id', '=', organizationId)
        .where('deleted_at', 'is', null)
        .$call((query) => (after === undefined ? query : query.where('id', '<', after)))
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toProjectRecord);
    });
  }

  /** The project with `changes` made; null when it was deleted meanwhile. */
  async update(
    project: ProjectRecord,
    changes: ProjectChanges,
    caller: AuditCaller,
  ): Promise<ProjectRecord | null> {
    const update = projectUpdate(project, changes);
    if (Object.keys(update).length === 0) return project;
    const row = await audit.recording(
      this.db,
      caller,
      (trx) =>
        trx
          .updateTable('catalog.projects')
          .set({ ...update, updated_at: sql<Date>`now()` })
          .where('organization_id', '=', project.organizationId)
          .where('id', '=', project.id)
          .where('deleted_at', 'is', null)
          .returning(PROJECT_COLUMNS)
          .executeTakeFirst(),
      (updated) => ({
        action: 'project.updated',
        resource: { type: 'project', id: updated.id, name: updated.name },
        details: { fields: Object.keys(update) },
      }),
    );
    return row ? toProjectRecord(row) : null;
  }

  /**
   * Marks the project deleted, its cascade leased to the caller for `leaseMs`, and gives its place
   * in the plan back; false when there is no such project (or it is already deleted).
   */
  markDeleted(organizationId: string, id: string, leaseMs: number, caller: AuditCaller): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const marked = await trx
        .updateTable('catalog.projects')
        .set({ deleted_at: sql<Date>`now()`, purge_after: leaseEnd(leaseMs) })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .returning('name')
        .executeTakeFirst();
      if (!marked) return false;
      await audit.record(trx, caller, {
        action: 'project.deleted',
        resource: { type: 'project', id, name: marked.name },
      });
      await trx
        .updateTable('catalog.project_counts')
        .set((eb) => ({ projects: eb('projects', '-', eb.lit(1)) }))
        .where('organization_id', '=', organizationId)
        .execute();
      return true;
    });
  }

  /**
   * Takes up to `limit` deleted projects whose cascade is due (never finished: its try failed or
   * died), leasing each for `leaseMs`. The claim commits before the caller asks workflow anything.
   */
  async claimDeleted(limit: number, leaseMs: number): Promise<DeletedProject[]> {
    const rows = await this.db
      .updateTable('catalog.projects as p')
      .from((eb) =>
        eb
          .selectFrom('catalog.projects')
          .select('id')
          .where('deleted_at', 'is not', null)
          .where('purge_after', '<=', sql<Date>`now()`)
          .orderBy('purge_after')
          .limit(limit)
          .forUpdate()
          .skipLocked()
          .as('due'),
      )
      .set({ purge_after: leaseEnd(leaseMs) })
      .whereRef('p.id', '=', 'due.id')
      .returning(['p.id', 'p.organization_id'])
      .execute();
    return rows.map((row) => ({ id: row.id, organizationId: row.organization_id }));
  }

  /** Removes a deleted project's row, once nothing else remains to be done for it. */
  async purge(id: string): Promise<void> {
    await this.db
      .deleteFrom('catalog.projects')
      .where('id', '=', id)
      .where('deleted_at', 'is not', null)
      .execute();
  }
}
