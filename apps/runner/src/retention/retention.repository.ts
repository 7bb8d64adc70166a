import type { RetentionKind } from '#contracts';
import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { type ExpressionBuilder, type Kysely, type QueryCreator, sql } from 'kysely';

import type { StoredRunStatus } from '../engine/run-state.js';
import type { DB } from '../runner.tables.js';

/** A run in one of these will never change again: nothing a later step reads can be taken from it. */
export const FINAL_STORED_STATUSES = [
  'complete',
  'errored',
  'terminated',
] as const satisfies readonly StoredRunStatus[];

const NO_RUN = '00000000-0000-0000-0000-000000000000';

/** What one statement of the purge did. */
export interface TrimmedBatch {
  /** Runs it looked at (at most the batch). */
  scanned: number;
  /** Runs trimmed now (a run trimmed before is not counted again). */
  runs: number;
  /** Step rows trimmed now (for diagrams, 0). */
  steps: number;
  /** Runs passed while still live, set aside for a later pass. */
  deferred: number;
}

export interface WalkedBatch extends TrimmedBatch {
  /** Another replica holds this organization's walk of this kind right now: nothing was done. */
  busy: boolean;
}

export interface DeferredBatch extends TrimmedBatch {
  /** The last set-aside run looked at: the next batch starts after it. */
  last: string | null;
}

type Runs = ExpressionBuilder<
  DB & { b: { id: string; status: StoredRunStatus; parent_run_id: string | null } },
  'b'
>;

/**
 * Whether a run of the batch `b` may lose its payloads now: it is final, so no step of its own will
 * read them again; its parent, if it has one, is final too, since a parent still running reads what
 * its children (loop iterations, called workflows) produced; and nothing that follows its end (an
 * error workflow, notifications: `run_endings`) is still to read it.
 */
function trimmable(eb: Runs) {
  return eb.and([
    eb('b.status', 'in', FINAL_STORED_STATUSES),
    eb.or([
      eb('b.parent_run_id', 'is', null),
      eb.exists(
        eb
          .selectFrom('runner.runs as parent')
          .select('parent.id')
          .whereRef('parent.id', '=', 'b.parent_run_id')
          .where('parent.status', 'in', FINAL_STORED_STATUSES),
      ),
    ]),
    eb.not(
      eb.exists(
        eb.selectFrom('runner.run_endings as e').select('e.run_id').whereRef('e.run_id', '=', 'b.id'),
      ),
    ),
  ]);
}

/**
 * What `trim` reads: the tables and a `trimmable` CTE. The two statements that call it have other
 * CTEs besides, which make their query creators types Kysely cannot narrow to this one by itself.
 */
type Trimming = QueryCreator<DB & { trimmable: { id: string } }>;

/**
 * The trim itself, of the runs `trimmable` lists, each row once (`…_trimmed_at IS NULL`, so a run
 * trimmed before is left as it is): a step keeps its status, `via`, error, timing and attempt and
 * loses its input, output and state; a diagram keeps its nodes' ids, positions, types and labels and
 * its edges (`runner.trimmed_diagram`).
 */
function trim(db: Trimming, kind: RetentionKind) {
  const runs = db.selectFrom('trimmable').select('trimmable.id');
  switch (kind) {
    case 'step_payload':
      return db
        .updateTable('runner.run_steps')
        .set({ input: null, output: null, state: null, payload_trimmed_at: sql<Date>`now()` })
        .where('run_id', 'in', runs)
        .where('payload_trimmed_at', 'is', null)
        .returning(['run_id', sql<boolean>`true`.as('step')]);
    case 'diagram':
      return db
        .updateTable('runner.runs')
        .set({ diagram: sql<string>`runner.trimmed_diagram(diagram)`, diagram_trimmed_at: sql<Date>`now()` })
        .where('id', 'in', runs)
        .where('diagram_trimmed_at', 'is', null)
        .returning(['id as run_id', sql<boolean>`false`.as('step')]);
  }
}

/**
 * The purge's statements (docs/retention.md). Each is one statement, so one short transaction: it
 * locks the step rows (or run rows) it trims, which no writer touches once a run is final, and the
 * organization's progress row, which only the purge writes. Nothing is held between statements, and
 * none waits on another replica: a progress row or set-aside run another replica holds is skipped.
 */
@Injectable()
export class RetentionRepository {
  constructor(@InjectKysely() private readonly db: Kysely<DB>) {}

  /** The organization's walk of this kind starts at its oldest run the first time. */
  async ensureProgress(organizationId: string, kind: RetentionKind): Promise<void> {
    await this.db
      .insertInto('runner.retention_progress')
      .values({ organization_id: organizationId, kind })
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }

  /**
   * The next `batch` runs of the organization after its watermark and before `beforeId` (the id
   * bound of the cutoff time), oldest first, read from `runs_organization_idx`: the final ones are
   * trimmed, the others set aside in `retention_pending`, and the watermark moves to the last.
   */
  async trimNext(
    organizationId: string,
    kind: RetentionKind,
    beforeId: string,
    batch: number,
  ): Promise<WalkedBatch> {
    const row = await this.db
      .with('progress', (db) =>
        db
          .selectFrom('runner.retention_progress')
          .select('last_run_id')
          .where('organization_id', '=', organizationId)
          .where('kind', '=', kind)
          .forUpdate()
          .skipLocked(),
      )
      .with('b', (db) =>
        db
          .selectFrom('runner.runs as r')
          .select(['r.id', 'r.status', 'r.parent_run_id'])
          .where('r.organization_id', '=', organizationId)
          .where('r.id', '<', beforeId)
          // A scalar bound (null, so no run, when another replica holds the row), not a join: the
          // walk of the index is then in id order and stops after the batch.
          .where((eb) =>
            eb(
              'r.id',
              '>',
              eb
                .selectFrom('progress')
                .select((progress) =>
                  progress.fn.coalesce('progress.last_run_id', sql<string>`${NO_RUN}::uuid`).as('after'),
                ),
            ),
          )
          .orderBy('r.id')
          .limit(batch),
      )
      .with('trimmable', (db) => db.selectFrom('b').select('b.id').where(trimmable))
      .with('deferred', (db) =>
        db
          .insertInto('runner.retention_pending')
          .columns(['organization_id', 'kind', 'run_id'])
          .expression((eb) =>
            eb
              .selectFrom('b')
              .select([sql.val(organizationId).as('organization_id'), sql.val(kind).as('kind'), 'b.id'])
              .where('b.id', 'not in', eb.selectFrom('trimmable').select('trimmable.id')),
          )
          .onConflict((conflict) => conflict.doNothing())
          .returning('run_id'),
      )
      .with('trimmed', (db) => trim(db as unknown as Trimming, kind))
      .with('advanced', (db) =>
        db
          .updateTable('runner.retention_progress')
          .set((eb) => ({
            last_run_id: eb.selectFrom('b').select('b.id').orderBy('b.id', 'desc').limit(1),
            updated_at: sql<Date>`now()`,
          }))
          .where('organization_id', '=', organizationId)
          .where('kind', '=', kind)
          .where((eb) => eb.exists(eb.selectFrom('b').select('b.id')))
          .returning('last_run_id'),
      )
      .selectNoFrom((eb) => [
        eb.exists(eb.selectFrom('progress').select('progress.last_run_id')).as('claimed'),
        ...counts(eb),
      ])
      .executeTakeFirstOrThrow();
    return { busy: !row.claimed, ...numbers(row) };
  }

  /**
   * The next `batch` of the organization's set-aside runs after `after`: those that have ended (and
   * whose parent has) are trimmed and forgotten; the others wait for the next pass.
   */
  async trimDeferred(
    organizationId: string,
    kind: RetentionKind,
    beforeId: string,
    after: string | null,
    batch: number,
  ): Promise<DeferredBatch> {
    const row = await this.db
      .with('pending', (db) =>
        db
          .selectFrom('runner.retention_pending')
          .select('run_id')
          .where('organization_id', '=', organizationId)
          .where('kind', '=', kind)
          .where('run_id', '>', after ?? NO_RUN)
          .orderBy('run_id')
          .limit(batch)
          .forUpdate()
          .skipLocked(),
      )
      .with('b', (db) =>
        db
          .selectFrom('runner.runs as r')
          .innerJoin('pending', 'pending.run_id', 'r.id')
          .select(['r.id', 'r.status', 'r.parent_run_id'])
          // A setting raised since the run was set aside keeps it longer.
          .where('r.id', '<', beforeId),
      )
      .with('trimmable', (db) => db.selectFrom('b').select('b.id').where(trimmable))
      .with('deferred', (db) =>
        db
          .deleteFrom('runner.retention_pending')
          .where('organization_id', '=', organizationId)
          .where('kind', '=', kind)
          .where('run_id', 'in', db.selectFrom('trimmable').select('trimmable.id'))
          .returning('run_id'),
      )
      .with('trimmed', (db) => trim(db as unknown as Trimming, kind))
      .selectNoFrom((eb) => [
        eb
          .selectFrom('pending')
          .select('pending.run_id')
          .orderBy('pending.run_id', 'desc')
          .limit(1)
          .as('last'),
        eb
          .selectFrom('pending')
          .select((count) => count.fn.countAll<string>().as('n'))
          .as('looked'),
        ...counts(eb),
      ])
      .executeTakeFirstOrThrow();
    const { runs, steps, deferred: settled } = numbers(row);
    const looked = Number(row.looked ?? 0);
    // Here the `deferred` CTE forgets the runs it trims: what stays set aside is the rest.
    return { scanned: looked, runs, steps, deferred: looked - settled, last: row.last ?? null };
  }
}

type Counted = DB & {
  b: { id: string };
  trimmed: { run_id: string; step: boolean };
  deferred: { run_id: string };
};

function counts(eb: ExpressionBuilder<Counted, never>) {
  return [
    eb
      .selectFrom('b')
      .select((count) => count.fn.countAll<string>().as('n'))
      .as('scanned'),
    eb
      .selectFrom('trimmed')
      .select((count) => count.fn.count<string>('trimmed.run_id').distinct().as('n'))
      .as('runs'),
    eb
      .selectFrom('trimmed')
      .select((count) => count.fn.countAll<string>().as('n'))
      .where('trimmed.step', '=', true)
      .as('steps'),
    eb
      .selectFrom('deferred')
      .select((count) => count.fn.countAll<string>().as('n'))
      .as('deferred'),
  ] as const;
}

function numbers(row: {
  scanned: string | null;
  runs: string | null;
  steps: string | null;
  deferred: string | null;
}): TrimmedBatch {
  return {
    scanned: Number(row.scanned ?? 0),
    runs: Number(row.runs ?? 0),
    steps: Number(row.steps ?? 0),
    deferred: Number(row.deferred ?? 0),
  };
}
