import { InjectKysely } from '#persistence';
import { Injectable } from '@nestjs/common';
import { Kysely, sql } from 'kysely';

import type { RunRecord } from '../engine/run-state.js';
import { RunnerConfig } from '../runner.config.js';
import type { DB } from '../runner.tables.js';
import { layeredOutputs, type StepOutputs } from '../templates/template.util.js';

/** What a loop iteration's templates read beyond its own steps. */
export interface InheritedScope {
  /** The input of the run the loop (or the outermost of nested loops) is a step of: `{{trigger}}`. */
  input: string;
  /** The `done` steps of the runs around the iteration, the nearest first. */
  outputs: StepOutputs;
}

interface Entry {
  scope: InheritedScope;
  bytes: number;
}

/**
 * The scope loop iterations inherit (docs/workflows.md, "Loops"): an iteration of loop L in run P
 * reads P's `done` steps (the steps before L), then what P itself inherits when P is an iteration of
 * an enclosing loop, and P's input as `{{trigger}}`. Those steps are done before L starts and never
 * change, so they are read from Postgres once per (P, L) and kept here, shared by every iteration
 * this runner executes: a 1,000-item loop reads a large query result before it once, not 1,000 times.
 * Least recently used entries go once the entries pass `LOOP_SCOPE_CACHE_BYTES`.
 */
@Injectable()
export class InheritedScopes {
  /** In use order, least recent first. */
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<InheritedScope>>();
  private bytes = 0;

  constructor(
    @InjectKysely() private readonly db: Kysely<DB>,
    private readonly config: RunnerConfig,
  ) {}

  /** What `run` inherits: null unless it is a loop iteration. */
  of(run: Pick<RunRecord, 'parentRunId' | 'parentNodeId' | 'iteration'>): Promise<InheritedScope | null> {
    if (run.iteration === null || run.parentRunId === null || run.parentNodeId === null) {
      return Promise.resolve(null);
    }
    return this.at(run.parentRunId, run.parentNodeId);
  }

  /** What the iterations of loop `loopId` of run `runId` inherit. */
  private at(runId: string, loopId: string): Promise<InheritedScope> {
    const key = `${runId}\u0000${loopId}`;
    const entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      return Promise.resolve(entry.scope);
    }
    let loading = this.loading.get(key);
    if (!loading) {
      loading = this.load(runId).then(
        (loaded) => {
          this.loading.delete(key);
          this.keep(key, loaded);
          return loaded.scope;
        },
        (error: unknown) => {
          this.loading.delete(key);
          throw error;
        },
      );
      this.loading.set(key, loading);
    }
    return loading;
  }

  private async load(runId: string): Promise<Entry> {
    const row = await this.db
      .selectFrom('runner.runs as r')
      .select([
        'r.input',
        'r.parent_run_id as parentRunId',
        'r.parent_node_id as parentNodeId',
        'r.iteration',
        (eb) =>
          eb
            .selectFrom('runner.run_steps as s')
            .select(
              sql<
                Array<[string, Record<string, string>]>
              >`coalesce(json_agg(json_build_array(s.node_id, s.output)), '[]'::json)`.as('steps'),
            )
            .where('s.run_id', '=', eb.ref('r.id'))
            .where('s.status', '=', 'done')
            .where('s.compensation', '=', false)
            .where('s.output', 'is not', null)
            .$asScalar()
            .$notNull()
            .as('steps'),
      ])
      .where('r.id', '=', runId)
      .executeTakeFirst();
    if (!row) throw new Error(`run ${runId}, which a loop iteration was started under, is not there`);
    const own = new Map(row.steps);
    const bytes = row.steps.reduce(
      (sum, [nodeId, output]) =>
        sum + nodeId.length + Object.entries(output).reduce((n, [k, v]) => n + k.length + v.length, 0),
      0,
    );
    const enclosing = await this.of(row);
    const scope: InheritedScope = enclosing
      ? { input: enclosing.input, outputs: layeredOutputs(own, enclosing.outputs) }
      : { input: row.input, outputs: own };
    return { scope, bytes: bytes + (enclosing ? 0 : row.input.length) };
  }

  private keep(key: string, entry: Entry): void {
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.config.LOOP_SCOPE_CACHE_BYTES || oldest === key) break;
      this.entries.delete(oldest);
      this.bytes -= old.bytes;
    }
  }
}
