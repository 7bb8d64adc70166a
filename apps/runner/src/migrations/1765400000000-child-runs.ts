import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Child runs (docs/runs.md, "Child runs"): a run started by a step of another run, a called
 * workflow's or a loop's iteration. `child_key` is unique per parent, the exactly-once claim of a
 * child: a parent that starts its children again after a crash finds the ones it started. `depth`
 * is the parent's plus one, refused past `RUN_MAX_DEPTH`. The children of a run are listed by
 * parent and node, iterations in order (`runs_children_idx`). The columns have no default but
 * `depth`'s constant, so adding them rewrites nothing; the indexes are built concurrently, outside a
 * transaction, so runs keep being written while a large table is indexed.
 */
export class ChildRuns1765400000000 implements MigrationInterface {
  name = 'ChildRuns1765400000000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE runner.runs
        ADD COLUMN IF NOT EXISTS parent_run_id uuid,
        ADD COLUMN IF NOT EXISTS parent_node_id text,
        ADD COLUMN IF NOT EXISTS child_key text,
        ADD COLUMN IF NOT EXISTS iteration integer,
        ADD COLUMN IF NOT EXISTS depth integer NOT NULL DEFAULT 0`);
    await runner.query(
      `CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS runs_child_key ON runner.runs (parent_run_id, child_key)
       WHERE parent_run_id IS NOT NULL`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_children_idx
       ON runner.runs (parent_run_id, parent_node_id, (coalesce(iteration, -1)), id)
       WHERE parent_run_id IS NOT NULL`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_children_idx`);
    await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.runs_child_key`);
    await runner.query(`
      ALTER TABLE runner.runs
        DROP COLUMN IF EXISTS depth,
        DROP COLUMN IF EXISTS iteration,
        DROP COLUMN IF EXISTS child_key,
        DROP COLUMN IF EXISTS parent_node_id,
        DROP COLUMN IF EXISTS parent_run_id`);
  }
}
