import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Flow control and fairness (docs/flow-control.md). A new run may be written `queued` but held:
 * `held_by` names the gate it waits at, and it has no job until it is let through. The gates, in the
 * order a run passes them:
 *   debounce     `release_at` = start + period; a later start for the same key terminates it;
 *   throttle     at most `throttle_limit` runs pass per `throttle_period_s` per key (`throttled_at`);
 *   concurrency  at most `concurrency_limit` unfinished runs let through per key;
 *   share        the organization already has `share` runs waiting in the RUNS stream: one more is let
 *                through each time one of them leaves the queue (so another organization's run waits
 *                behind at most `share` of its runs, never behind its whole backlog).
 * The gates are kept by triggers, in the transaction of the change that opens them (an insert, a
 * run's end, a claim, a resume), so no process can die between a slot freeing and the next run
 * taking it. Each key's admission takes a transaction-scoped advisory lock on that key, so two ends
 * never let the same slot through twice. A run let through gets its dispatch and a NOTIFY on
 * `runner_admitted`, which every runner listens to and publishes the job for (the job's message id
 * makes the publishes one job); should the notice be lost, the sweeper's lost-job check publishes it.
 * The new columns have constant defaults or none, so adding them rewrites nothing.
 */
export class FlowControl1765500000000 implements MigrationInterface {
  name = 'FlowControl1765500000000';
  transaction = false;

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      ALTER TABLE runner.runs
        ADD COLUMN IF NOT EXISTS held_by text,
        ADD COLUMN IF NOT EXISTS priority integer NOT NULL DEFAULT 0,
        ADD COLUMN IF NOT EXISTS concurrency_key text,
        ADD COLUMN IF NOT EXISTS concurrency_limit integer,
        ADD COLUMN IF NOT EXISTS throttle_key text,
        ADD COLUMN IF NOT EXISTS throttle_limit integer,
        ADD COLUMN IF NOT EXISTS throttle_period_s integer,
        ADD COLUMN IF NOT EXISTS throttled_at timestamptz,
        ADD COLUMN IF NOT EXISTS debounce_key text,
        ADD COLUMN IF NOT EXISTS release_at timestamptz,
        ADD COLUMN IF NOT EXISTS share integer`);
    // The runs waiting at each gate, in the order they are let through.
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_held_concurrency_idx
       ON runner.runs (workflow_id, concurrency_key, priority DESC, created_at, id)
       WHERE held_by = 'concurrency'`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_held_throttle_idx
       ON runner.runs (workflow_id, throttle_key, priority DESC, created_at, id)
       WHERE held_by = 'throttle'`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_held_debounce_idx
       ON runner.runs (workflow_id, debounce_key) WHERE held_by = 'debounce'`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_held_share_idx
       ON runner.runs (organization_id, priority DESC, created_at, id) WHERE held_by = 'share'`,
    );
    // The dashboard's: an organization's held runs, whatever holds them.
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_held_organization_idx
       ON runner.runs (organization_id) WHERE held_by IS NOT NULL AND status = 'queued'`,
    );
    // The sweeper's: debounced and throttled runs whose time has come.
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_release_idx ON runner.runs (release_at)
       WHERE held_by IN ('debounce', 'throttle')`,
    );
    // What holds each gate's slots: unfinished runs let through, runs that passed the throttle lately,
    // and each organization's runs waiting in the RUNS stream.
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_concurrency_live_idx
       ON runner.runs (workflow_id, concurrency_key)
       WHERE concurrency_key IS NOT NULL AND held_by IS NULL
         AND status NOT IN ('complete', 'errored', 'terminated')`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_throttled_idx
       ON runner.runs (workflow_id, throttle_key, throttled_at) WHERE throttled_at IS NOT NULL`,
    );
    await runner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS runs_organization_queued_idx
       ON runner.runs (organization_id) WHERE status = 'queued' AND held_by IS NULL`,
    );

    await runner.query(`
      CREATE OR REPLACE FUNCTION runner.notify_admitted(p_id uuid, p_dispatch integer) RETURNS void
      LANGUAGE sql AS $$ SELECT pg_notify('runner_admitted', p_id::text || ':' || p_dispatch::text) $$`);

    // Lets a run through the gate it is held at, on to the next one that applies, or to the queue.
    await runner.query(`
      CREATE OR REPLACE FUNCTION runner.pass_gate(p_id uuid) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        r runner.runs;
        next_gate text;
        new_dispatch integer;
      BEGIN
        -- Locked, and read again once another caller let it through: it passes each gate once.
        SELECT * INTO r FROM runner.runs WHERE id = p_id FOR UPDATE;
        IF r.held_by IS NULL OR r.status <> 'queued' THEN RETURN; END IF;
        next_gate := CASE
          WHEN r.held_by = 'debounce' AND r.throttle_key IS NOT NULL THEN 'throttle'
          WHEN r.held_by IN ('debounce', 'throttle') AND r.concurrency_key IS NOT NULL THEN 'concurrency'
          ELSE NULL END;
        IF next_gate IS NULL THEN
          UPDATE runner.runs
             SET held_by = NULL, release_at = NULL, dispatch = dispatch + 1, dispatched_at = now(),
                 throttled_at = CASE WHEN held_by = 'throttle' THEN now() ELSE throttled_at END
           WHERE id = p_id
          RETURNING dispatch INTO new_dispatch;
          PERFORM runner.notify_admitted(p_id, new_dispatch);
          RETURN;
        END IF;
        UPDATE runner.runs
           SET held_by = next_gate, release_at = NULL,
               throttled_at = CASE WHEN held_by = 'throttle' THEN now() ELSE throttled_at END
         WHERE id = p_id;
        IF next_gate = 'throttle' THEN
          PERFORM runner.admit_throttled(r.workflow_id, r.throttle_key);
        ELSE
          PERFORM runner.admit_concurrent(r.workflow_id, r.concurrency_key);
        END IF;
      END $$`);

    await runner.query(`
      CREATE OR REPLACE FUNCTION runner.admit_concurrent(p_workflow text, p_key text) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        slots integer;
        live integer;
        next_id uuid;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended('concurrency:' || p_workflow || ':' || p_key, 0));
        -- The limit of the version that the first run in line started with.
        SELECT concurrency_limit INTO slots FROM runner.runs
         WHERE workflow_id = p_workflow AND concurrency_key = p_key AND held_by = 'concurrency'
           AND status = 'queued'
         ORDER BY priority DESC, created_at, id LIMIT 1;
        IF slots IS NULL THEN RETURN; END IF;
        SELECT count(*) INTO live FROM runner.runs
         WHERE workflow_id = p_workflow AND concurrency_key = p_key AND held_by IS NULL
           AND status NOT IN ('complete', 'errored', 'terminated');
        FOR next_id IN
          SELECT id FROM runner.runs
           WHERE workflow_id = p_workflow AND concurrency_key = p_key AND held_by = 'concurrency'
             AND status = 'queued'
           ORDER BY priority DESC, created_at, id
           LIMIT greatest(slots - live, 0)
        LOOP
          PERFORM runner.pass_gate(next_id);
        END LOOP;
      END $$`);

    await runner.query(`
      CREATE OR REPLACE FUNCTION runner.admit_throttled(p_workflow text, p_key text) RETURNS void
      LANGUAGE plpgsql AS $$
      DECLARE
        lim integer;
        period integer;
        passed integer;
        next_id uuid;
        oldest timestamptz;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended('throttle:' || p_workflow || ':' || p_key, 0));
        SELECT throttle_limit, throttle_period_s INTO lim, period FROM runner.runs
         WHERE workflow_id = p_workflow AND throttle_key = p_key AND held_by = 'throttle'
           AND status = 'queued'
         ORDER BY priority DESC, created_at, id LIMIT 1;
        IF lim IS NULL THEN RETURN; END IF;
        SELECT count(*), min(throttled_at) INTO passed, oldest FROM runner.runs
         WHERE workflow_id = p_workflow AND throttle_key = p_key
           AND throttled_at > now() - make_interval(secs => period);
        FOR next_id IN
          SELECT id FROM runner.runs
           WHERE workflow_id = p_workflow AND throttle_key = p_key AND held_by = 'throttle'
             AND status = 'queued'
           ORDER BY priority DESC, created_at, id
           LIMIT greatest(lim - passed, 0)
        LOOP
          PERFORM runner.pass_gate(next_id);
        END LOOP;
        -- Those still held are looked at again when the oldest start of the period leaves it.
        UPDATE runner.runs
           SET release_at = coalesce(oldest, now()) + make_interval(secs => period)
         WHERE workflow_id = p_workflow AND throttle_key = p_key AND held_by = 'throttle'
           AND status = 'queued';
      END $$`);

    // A new run held by debounce replaces the one still waiting for the same key.
    await runner.query(`
      CREATE OR REPLACE FUNCTION runner.run_held() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.held_by = 'debounce' THEN
          PERFORM pg_advisory_xact_lock(
            hashtextextended('debounce:' || NEW.workflow_id || ':' || NEW.debounce_key, 0));
          UPDATE runner.runs
             SET status = 'terminated', finished_at = now(), release_at = NULL,
                 error = 'Replaced by run ' || NEW.id::text
                   || ': a later start with the same debounce key came within its period.'
           WHERE workflow_id = NEW.workflow_id AND debounce_key = NEW.debounce_key
             AND held_by = 'debounce' AND status IN ('queued', 'paused') AND id <> NEW.id;
        ELSIF NEW.held_by = 'throttle' THEN
          PERFORM runner.admit_throttled(NEW.workflow_id, NEW.throttle_key);
        ELSIF NEW.held_by = 'concurrency' THEN
          PERFORM runner.admit_concurrent(NEW.workflow_id, NEW.concurrency_key);
        END IF;
        RETURN NULL;
      END $$`);
    await runner.query(`
      CREATE TRIGGER run_inserted_held AFTER INSERT ON runner.runs FOR EACH ROW
      WHEN (NEW.held_by IS NOT NULL AND NEW.held_by <> 'share')
      EXECUTE FUNCTION runner.run_held()`);
    // A held run resumed after a pause is looked at again, like a new one (debounce keeps its time).
    await runner.query(`
      CREATE TRIGGER run_resumed_held AFTER UPDATE OF status ON runner.runs FOR EACH ROW
      WHEN (NEW.held_by IN ('throttle', 'concurrency') AND NEW.status = 'queued'
            AND OLD.status <> 'queued')
      EXECUTE FUNCTION runner.run_held()`);

    // A run let through the concurrency gate that ends frees its slot for the next in line.
    await runner.query(`
      CREATE OR REPLACE FUNCTION runner.run_left_concurrency() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM runner.admit_concurrent(NEW.workflow_id, NEW.concurrency_key);
        RETURN NULL;
      END $$`);
    await runner.query(`
      CREATE TRIGGER run_ended_concurrency AFTER UPDATE OF status ON runner.runs FOR EACH ROW
      WHEN (NEW.concurrency_key IS NOT NULL AND OLD.held_by IS NULL
            AND NEW.status IN ('complete', 'errored', 'terminated')
            AND OLD.status NOT IN ('complete', 'errored', 'terminated'))
      EXECUTE FUNCTION runner.run_left_concurrency()`);

    // One of an organization's runs left the queue (claimed, cancelled, paused): the first of its
    // runs held for its share takes the place. Only while it has some: the index answers at once.
    await runner.query(`
      CREATE OR REPLACE FUNCTION runner.run_left_queue() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        next_id uuid;
      BEGIN
        SELECT id INTO next_id FROM runner.runs
         WHERE organization_id = NEW.organization_id AND held_by = 'share' AND status = 'queued'
         ORDER BY priority DESC, created_at, id
         LIMIT 1 FOR UPDATE SKIP LOCKED;
        IF next_id IS NOT NULL THEN PERFORM runner.pass_gate(next_id); END IF;
        RETURN NULL;
      END $$`);
    await runner.query(`
      CREATE TRIGGER run_left_queue AFTER UPDATE OF status ON runner.runs FOR EACH ROW
      WHEN (OLD.status = 'queued' AND NEW.status <> 'queued' AND OLD.held_by IS NULL)
      EXECUTE FUNCTION runner.run_left_queue()`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TRIGGER IF EXISTS run_left_queue ON runner.runs`);
    await runner.query(`DROP TRIGGER IF EXISTS run_ended_concurrency ON runner.runs`);
    await runner.query(`DROP TRIGGER IF EXISTS run_resumed_held ON runner.runs`);
    await runner.query(`DROP TRIGGER IF EXISTS run_inserted_held ON runner.runs`);
    await runner.query(`DROP FUNCTION IF EXISTS runner.run_left_queue()`);
    await runner.query(`DROP FUNCTION IF EXISTS runner.run_left_concurrency()`);
    await runner.query(`DROP FUNCTION IF EXISTS runner.run_held()`);
    await runner.query(`DROP FUNCTION IF EXISTS runner.admit_throttled(text, text)`);
    await runner.query(`DROP FUNCTION IF EXISTS runner.admit_concurrent(text, text)`);
    await runner.query(`DROP FUNCTION IF EXISTS runner.pass_gate(uuid)`);
    await runner.query(`DROP FUNCTION IF EXISTS runner.notify_admitted(uuid, integer)`);
    for (const index of [
      'runs_organization_queued_idx',
      'runs_throttled_idx',
      'runs_concurrency_live_idx',
      'runs_release_idx',
      'runs_held_share_idx',
      'runs_held_organization_idx',
      'runs_held_debounce_idx',
      'runs_held_throttle_idx',
      'runs_held_concurrency_idx',
    ]) {
      await runner.query(`DROP INDEX CONCURRENTLY IF EXISTS runner.${index}`);
    }
    await runner.query(`
      ALTER TABLE runner.runs
        DROP COLUMN IF EXISTS share,
        DROP COLUMN IF EXISTS release_at,
        DROP COLUMN IF EXISTS debounce_key,
        DROP COLUMN IF EXISTS throttled_at,
        DROP COLUMN IF EXISTS throttle_period_s,
        DROP COLUMN IF EXISTS throttle_limit,
        DROP COLUMN IF EXISTS throttle_key,
        DROP COLUMN IF EXISTS concurrency_limit,
        DROP COLUMN IF EXISTS concurrency_key,
        DROP COLUMN IF EXISTS priority,
        DROP COLUMN IF EXISTS held_by`);
  }
}
