import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each time one of an organization's runs held for its share is let into the queue, every runner is
 * told the organization still has a backlog (NOTIFY `runner_backlogged` with its id). Runners learned
 * it only from the starts they accepted being held, so once a busy organization stopped starting runs
 * they forgot its backlog while it drained, and gave the queue's jobs the slots kept for other
 * organizations' new runs (docs/flow-control.md, "Fairness between organizations").
 */
export class BacklogNotices1765600000000 implements MigrationInterface {
  name = 'BacklogNotices1765600000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(runLeftQueue(true));
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(runLeftQueue(false));
  }
}

function runLeftQueue(notify: boolean): string {
  return `
    CREATE OR REPLACE FUNCTION runner.run_left_queue() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      next_id uuid;
    BEGIN
      SELECT id INTO next_id FROM runner.runs
       WHERE organization_id = NEW.organization_id AND held_by = 'share' AND status = 'queued'
       ORDER BY priority DESC, created_at, id
       LIMIT 1 FOR UPDATE SKIP LOCKED;
      IF next_id IS NOT NULL THEN
        PERFORM runner.pass_gate(next_id);
        ${notify ? "PERFORM pg_notify('runner_backlogged', NEW.organization_id::text);" : ''}
      END IF;
      RETURN NULL;
    END $$`;
}
