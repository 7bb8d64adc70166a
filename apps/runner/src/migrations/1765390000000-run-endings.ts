import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What must happen after some runs end (an error workflow, notifications: docs/runs.md, "Reacting to a
 * run's end"), kept as an outbox row written by the same statement that ends the run, whichever
 * statement that is (a holder's last checkpoint, a cancel, a bulk cancel, a deleted workflow's
 * termination): a trigger on the status column, so no path that ends a run can forget it. Only runs
 * started with `watch_end` (their diagram asks for a reaction) pay for it; the trigger's `WHEN` is
 * evaluated without calling the function for every other run.
 */
export class RunEndings1765390000000 implements MigrationInterface {
  name = 'RunEndings1765390000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE runner.runs ADD COLUMN watch_end boolean NOT NULL DEFAULT false`);
    // `handled` names the handlers that already succeeded, so a retry runs only the others.
    await runner.query(`
      CREATE TABLE runner.run_endings (
        run_id uuid PRIMARY KEY REFERENCES runner.runs (id) ON DELETE CASCADE,
        status text NOT NULL,
        handled text[] NOT NULL DEFAULT '{}',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        last_error text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await runner.query(`CREATE INDEX run_endings_due_idx ON runner.run_endings (next_attempt_at)`);
    await runner.query(`
      CREATE FUNCTION runner.record_run_ending() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO runner.run_endings (run_id, status) VALUES (NEW.id, NEW.status)
        ON CONFLICT (run_id) DO NOTHING;
        RETURN NULL;
      END
      $$`);
    await runner.query(`
      CREATE TRIGGER run_ended AFTER UPDATE OF status ON runner.runs FOR EACH ROW
      WHEN (NEW.watch_end AND NEW.status IN ('complete', 'errored', 'terminated')
            AND OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION runner.record_run_ending()`);
    // A run of pure steps is written once, already ended, by the runner that executed it inline.
    await runner.query(`
      CREATE TRIGGER run_inserted_ended AFTER INSERT ON runner.runs FOR EACH ROW
      WHEN (NEW.watch_end AND NEW.status IN ('complete', 'errored', 'terminated'))
      EXECUTE FUNCTION runner.record_run_ending()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER run_inserted_ended ON runner.runs`);
    await runner.query(`DROP TRIGGER run_ended ON runner.runs`);
    await runner.query(`DROP FUNCTION runner.record_run_ending()`);
    await runner.query(`DROP TABLE runner.run_endings`);
    await runner.query(`ALTER TABLE runner.runs DROP COLUMN watch_end`);
  }
}
