import type { Page } from '#common';
import type { Diagram, Principal, RunTrigger } from '#contracts';
import { paginate, type PageRequest, queryRows } from '#persistence';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';

import type { RunRecord, RunSettlement, RunWithSteps, StepRecord } from '../engine/run-state.js';
import { RunEntity } from './run.entity.js';

export interface NewRun {
  id: string;
  organizationId: string;
  workflowId: string;
  workflowName: string;
  projectId: string;
  version: number | null;
  trigger: RunTrigger;
  triggerNodeId: string;
  createdBy: string | null;
  principal: Principal;
  input: string;
  diagram: Diagram;
  timeZone: string;
  idempotencyKey: string | null;
  /** The request the key stands for (`requestFingerprint`); null without a key. */
  idempotencyFingerprint: string | null;
  /** The trigger's step, done at once. */
  triggerOutput: Record<string, string>;
  /** The runner's clock, like every step's start: the run's steps never seem to start before it. */
  createdAt: Date;
}

/** The run an idempotency key names, and the fingerprint of the request that made it. */
export interface KeyHolder {
  run: RunWithSteps;
  fingerprint: string | null;
}

/**
 * What writing a new run came to: written; not written because its idempotency key is already
 * taken; or not written because its workflow's runs were terminated (the workflow was deleted) after
 * the start read the workflow.
 */
export type RecordOutcome = 'recorded' | 'key_taken' | 'workflow_deleted';

/**
 * The first CTE of both inserts: waits for any termination of the workflow under way and says whether
 * the workflow still takes runs (see the `terminated_workflows` migration). `$2`, `$3`: organization
 * and workflow.
 */
const WORKFLOW_GATE = `gate AS (SELECT runner.workflow_takes_runs($2, $3) AS open)`;

/** The outcome of an insert guarded by `WORKFLOW_GATE`, from the gate and the inserted `run`. */
const RECORD_OUTCOME = `SELECT CASE WHEN NOT (SELECT open FROM gate) THEN 'workflow_deleted'
  WHEN EXISTS (SELECT 1 FROM run) THEN 'recorded' ELSE 'key_taken' END AS outcome`;

/** A run as the dashboard lists it, with the workflow's name when the run started. */
export interface RecentRunRecord {
  id: string;
  workflowId: string;
  workflowName: string;
  projectId: string;
  trigger: RunTrigger;
  status: RunRecord['status'];
  createdAt: Date;
}

export interface FailedStepRecord {
  runId: string;
  workflowId: string;
  workflowName: string;
  step: string;
  error: string | null;
  at: Date;
}

/** A run the sweeper hands to the queue again. */
export interface DispatchedRun {
  runId: string;
  dispatch: number;
}

/** A run a sweep moved back to the queue; `woken` when it was `waiting` and is now `queued`. */
export interface SweptRun extends DispatchedRun {
  woken: boolean;
}

const RUN_COLUMNS = `r.id, r.organization_id, r.workflow_id, r.workflow_name, r.project_id, r.version,
  r.trigger, r.trigger_node_id, r.status, r.created_by, r.principal, r.input, r.reply, r.error,
  r.diagram, r.time_zone, r.lease_token, r.claims, r.created_at`;

/** The run's steps in start order as one JSON value, so a run and its steps are one round trip. */
const STEPS_JSON = `(SELECT coalesce(json_agg(s ORDER BY s.position), '[]'::json)
  FROM runner.run_steps s WHERE s.run_id = r.id) AS steps`;

interface RunRow {
  id: string;
  organization_id: string;
  workflow_id: string;
  workflow_name: string;
  project_id: string;
  version: number | null;
  trigger: RunTrigger;
  trigger_node_id: string | null;
  status: RunRecord['status'];
  created_by: string | null;
  principal: Principal;
  input: string;
  reply: string | null;
  error: string | null;
  diagram: Diagram;
  time_zone: string;
  lease_token: number;
  claims: number;
  created_at: Date;
  steps?: StepJson[];
}

/** A run_steps row as `json_agg` spells it: timestamps are text. */
interface StepJson {
  node_id: string;
  position: number;
  status: StepRecord['status'];
  via: string[];
  input: string | null;
  output: Record<string, string> | null;
  error: string | null;
  ms: number | null;
  started_at: string;
  attempt: number;
  route: string | null;
  state: unknown;
  wake_at: string | null;
}

function toRun(row: RunRow): RunRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    workflowId: row.workflow_id,
    workflowName: row.workflow_name,
    projectId: row.project_id,
    version: row.version,
    trigger: row.trigger,
    triggerNodeId: row.trigger_node_id,
    status: row.status,
    createdBy: row.created_by,
    principal: row.principal,
    input: row.input,
    reply: row.reply,
    error: row.error,
    diagram: row.diagram,
    timeZone: row.time_zone,
    leaseToken: row.lease_token,
    claims: row.claims,
    createdAt: row.created_at,
  };
}

function toStep(json: StepJson): StepRecord {
  return {
    nodeId: json.node_id,
    position: json.position,
    status: json.status,
    via: json.via,
    input: json.input,
    output: json.output,
    error: json.error,
    ms: json.ms,
    startedAt: new Date(json.started_at),
    attempt: json.attempt,
    route: json.route,
    state: json.state,
    wakeAt: json.wake_at === null ? null : new Date(json.wake_at),
  };
}

function toRunWithSteps(row: RunRow): RunWithSteps {
  return { run: toRun(row), steps: (row.steps ?? []).map(toStep) };
}

/** Steps as the JSON `jsonb_to_recordset` reads in a checkpoint. */
function stepsJson(steps: readonly StepRecord[]): string {
  return JSON.stringify(
    steps.map((step) => ({
      node_id: step.nodeId,
      position: step.position,
      status: step.status,
      via: step.via,
      input: step.input,
      output: step.output,
      error: step.error,
      ms: step.ms,
      started_at: step.startedAt.toISOString(),
      attempt: step.attempt,
      route: step.route,
      state: step.state ?? null,
      wake_at: step.wakeAt?.toISOString() ?? null,
    })),
  );
}

/** The steps of a checkpoint, sent as one JSON parameter and read back as rows. */
function stepsRecordset(parameter: string): string {
  return `jsonb_to_recordset(${parameter}::jsonb) AS s(node_id text, position integer, status text,
    via text[], input text, output jsonb, error text, ms integer, started_at timestamptz,
    attempt integer, route text, state jsonb, wake_at timestamptz)`;
}

/** $1 … $15 of both inserts. */
function newRunParameters(run: NewRun): unknown[] {
  return [
    run.id,
    run.organizationId,
    run.workflowId,
    run.workflowName,
    run.projectId,
    run.version,
    run.trigger,
    run.triggerNodeId,
    run.createdBy,
    JSON.stringify(run.principal),
    run.input,
    JSON.stringify(run.diagram),
    run.timeZone,
    run.idempotencyKey,
    run.idempotencyFingerprint,
  ];
}

/** A run just written `queued` by `insert`, with its trigger step. */
export function queuedRunOf(run: NewRun): RunWithSteps {
  return { run: runRecordOf(run, 'queued', 0), steps: [triggerStepOf(run)] };
}

/** The record of a run just written (nothing of it was read back). */
export function runRecordOf(run: NewRun, status: RunRecord['status'], leaseToken: number): RunRecord {
  return {
    id: run.id,
    organizationId: run.organizationId,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    projectId: run.projectId,
    version: run.version,
    trigger: run.trigger,
    triggerNodeId: run.triggerNodeId,
    status,
    createdBy: run.createdBy,
    principal: run.principal,
    input: run.input,
    reply: null,
    error: null,
    diagram: run.diagram,
    timeZone: run.timeZone,
    leaseToken,
    claims: leaseToken,
    createdAt: run.createdAt,
  };
}

/** A run starts at its trigger: that step is done at once, its output the run's input. */
export function triggerStepOf(run: NewRun): StepRecord {
  return {
    nodeId: run.triggerNodeId,
    position: 0,
    status: 'done',
    via: [],
    input: null,
    output: run.triggerOutput,
    error: null,
    ms: 0,
    startedAt: run.createdAt,
    attempt: 1,
    route: null,
    state: null,
    wakeAt: null,
  };
}

/**
 * Every statement of the runner. The hot path (start, claim, checkpoint) is one statement each, so a
 * run costs a handful of round trips however many steps it has.
 */
@Injectable()
export class RunRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private rows<T>(sql: string, parameters: unknown[], manager?: EntityManager): Promise<T[]> {
    return queryRows<T>(manager ?? this.dataSource.manager, sql, parameters);
  }

  /**
   * The run an idempotency key created in the last `ttlHours`, with its steps. An older holder of
   * the key gives it up in the same statement, so the key can start a new run.
   */
  async findByIdempotencyKey(
    organizationId: string,
    key: string,
    ttlHours: number,
  ): Promise<KeyHolder | null> {
    const rows = await this.rows<RunRow & { idempotency_fingerprint: string | null }>(
      `WITH released AS (
         UPDATE runner.runs SET idempotency_key = NULL
         WHERE organization_id = $1 AND idempotency_key = $2
           AND created_at < now() - make_interval(hours => $3)
         RETURNING id
       )
       SELECT ${RUN_COLUMNS}, r.idempotency_fingerprint, ${STEPS_JSON} FROM runner.runs r
       WHERE r.organization_id = $1 AND r.idempotency_key = $2
         AND r.created_at >= now() - make_interval(hours => $3)`,
      [organizationId, key, ttlHours],
    );
    const row = rows[0];
    return row ? { run: toRunWithSteps(row), fingerprint: row.idempotency_fingerprint } : null;
  }

  /**
   * Writes the run, `queued`, and its trigger step, `done`, in one statement: once it is `recorded`
   * the run exists and its job will be executed (`queuedRunOf` is what was written).
   */
  async insert(run: NewRun): Promise<RecordOutcome> {
    const rows = await this.rows<{ outcome: RecordOutcome }>(
      `WITH ${WORKFLOW_GATE}, run AS (
         INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, version,
           trigger, trigger_node_id, status, created_by, principal, input, diagram, time_zone,
           idempotency_key, idempotency_fingerprint, dispatch, dispatched_at, created_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, 'queued', $9, $10, $11, $12, $13, $14, $15, 0, now(), $17
         FROM gate WHERE gate.open
         ON CONFLICT (organization_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING id, created_at
       ), trigger_step AS (
         INSERT INTO runner.run_steps (run_id, node_id, position, status, via, output, ms, started_at, attempt)
         SELECT id, $8, 0, 'done', '{}', $16::jsonb, 0, created_at, 1 FROM run
       )
       ${RECORD_OUTCOME}`,
      [...newRunParameters(run), JSON.stringify(run.triggerOutput), run.createdAt],
    );
    return rows[0]?.outcome ?? 'key_taken';
  }

  /**
   * Writes a run this runner has already started executing, in one statement: the run row (held
   * by the writer under lease token 1, or settled when `settlement` is given) with every step
   * recorded so far. This is the run's first checkpoint, so a run whose steps have no effects
   * elsewhere is recorded, complete, in a single round trip. Unless `recorded`, nothing was written.
   */
  async insertStarted(
    run: NewRun,
    leaseMs: number,
    steps: readonly StepRecord[],
    settlement?: RunSettlement,
  ): Promise<RecordOutcome> {
    const rows = await this.rows<{ outcome: RecordOutcome }>(
      `WITH ${WORKFLOW_GATE}, run AS (
         INSERT INTO runner.runs (id, organization_id, workflow_id, workflow_name, project_id, version,
           trigger, trigger_node_id, status, created_by, principal, input, diagram, time_zone,
           idempotency_key, idempotency_fingerprint, dispatch, dispatched_at, lease_token, claims,
           lease_expires_at, started_at, created_at, reply, error, wake_at, finished_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, coalesce($18, 'running'), $9, $10, $11, $12, $13, $14,
           $15, 0, NULL, 1, 1,
           CASE WHEN $18::text IS NULL THEN now() + make_interval(secs => $17 / 1000.0) END,
           $16, $16, $19, $20, $21::timestamptz,
           CASE WHEN $18 IN ('complete', 'errored') THEN now() END
         FROM gate WHERE gate.open
         ON CONFLICT (organization_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
         RETURNING id
       ), written AS (
         INSERT INTO runner.run_steps (run_id, node_id, position, status, via, input, output, error, ms,
           started_at, attempt, route, state, wake_at)
         SELECT run.id, s.node_id, s.position, s.status, s.via, s.input, s.output, s.error, s.ms,
           s.started_at, s.attempt, s.route, s.state, s.wake_at
         FROM run, ${stepsRecordset('$22')}
       )
       ${RECORD_OUTCOME}`,
      [
        ...newRunParameters(run),
        run.createdAt,
        leaseMs,
        settlement?.status ?? null,
        settlement?.status === 'complete' ? settlement.reply : null,
        settlement?.status === 'errored' ? settlement.error : null,
        settlement?.status === 'waiting' ? settlement.wakeAt.toISOString() : null,
        stepsJson(steps),
      ],
    );
    return rows[0]?.outcome ?? 'key_taken';
  }

  /**
   * Takes the run for this runner: it must be `queued`, or `running` under a lease that has run out
   * (its runner died). The new lease token fences off whoever held it before. Answers the run with
   * its checkpoints, or null when it is not to be taken now.
   */
  async claim(runId: string, leaseMs: number): Promise<RunWithSteps | null> {
    const rows = await this.rows<RunRow>(
      `WITH claimed AS (
         UPDATE runner.runs SET status = 'running', lease_token = lease_token + 1, claims = claims + 1,
           lease_expires_at = now() + make_interval(secs => $2 / 1000.0),
           started_at = coalesce(started_at, now())
         WHERE id = $1 AND (status = 'queued' OR (status = 'running' AND lease_expires_at < now()))
         RETURNING *
       )
       SELECT ${RUN_COLUMNS}, ${STEPS_JSON} FROM claimed r`,
      [runId, leaseMs],
    );
    return rows[0] ? toRunWithSteps(rows[0]) : null;
  }

  /** Why a claim found nothing: the run's status and, when running, how long its lease has left. */
  async holdOf(runId: string): Promise<{ status: RunRecord['status']; leaseLeftMs: number | null } | null> {
    const rows = await this.rows<{ status: RunRecord['status']; lease_left_ms: number | null }>(
      `SELECT status,
         (extract(epoch FROM lease_expires_at - now()) * 1000)::float8 AS lease_left_ms
       FROM runner.runs WHERE id = $1`,
      [runId],
    );
    const row = rows[0];
    return row ? { status: row.status, leaseLeftMs: row.lease_left_ms } : null;
  }

  /**
   * Records steps (and, with `settlement`, the run's outcome) for the holder of `leaseToken`, in one
   * statement. False when the run is no longer this holder's (terminated, or taken over after the
   * lease ran out): then nothing is written, which is how late results are dropped.
   */
  async checkpoint(
    runId: string,
    leaseToken: number,
    leaseMs: number,
    steps: readonly StepRecord[],
    settlement?: RunSettlement,
  ): Promise<boolean> {
    const status = settlement?.status ?? null;
    const rows = await this.rows<{ held: number }>(
      `WITH run AS (
         UPDATE runner.runs SET
           status = coalesce($4, status),
           lease_expires_at = CASE WHEN $4::text IS NULL
             THEN now() + make_interval(secs => $3 / 1000.0) ELSE NULL END,
           reply = CASE WHEN $4 = 'complete' THEN $5 ELSE reply END,
           error = CASE WHEN $4 = 'errored' THEN $6 ELSE error END,
           wake_at = CASE WHEN $4 = 'waiting' THEN $7::timestamptz ELSE NULL END,
           finished_at = CASE WHEN $4 IN ('complete', 'errored') THEN now() ELSE finished_at END
         WHERE id = $1 AND lease_token = $2 AND status = 'running'
         RETURNING id
       ), written AS (
         INSERT INTO runner.run_steps AS old (run_id, node_id, position, status, via, input, output, error,
           ms, started_at, attempt, route, state, wake_at)
         SELECT run.id, s.node_id, s.position, s.status, s.via, s.input, s.output, s.error, s.ms,
           s.started_at, s.attempt, s.route, s.state, s.wake_at
         FROM run, ${stepsRecordset('$8')}
         ON CONFLICT (run_id, node_id) DO UPDATE SET status = excluded.status, via = excluded.via,
           input = excluded.input, output = excluded.output, error = excluded.error, ms = excluded.ms,
           attempt = excluded.attempt, route = excluded.route, state = excluded.state,
           wake_at = excluded.wake_at
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM run)::int AS held`,
      [
        runId,
        leaseToken,
        leaseMs,
        status,
        settlement?.status === 'complete' ? settlement.reply : null,
        settlement?.status === 'errored' ? settlement.error : null,
        settlement?.status === 'waiting' ? settlement.wakeAt.toISOString() : null,
        stepsJson(steps),
      ],
    );
    return rows[0]?.held === 1;
  }

  /** Keeps the holder's lease alive during a long step; false when it is no longer the holder's. */
  async renewLease(runId: string, leaseToken: number, leaseMs: number): Promise<boolean> {
    const rows = await this.rows<unknown>(
      `UPDATE runner.runs SET lease_expires_at = now() + make_interval(secs => $3 / 1000.0)
       WHERE id = $1 AND lease_token = $2 AND status = 'running' RETURNING id`,
      [runId, leaseToken, leaseMs],
    );
    return rows.length > 0;
  }

  /** Hands a run back at once (shutdown), so the next runner need not wait for the lease to run out. */
  async releaseLease(runId: string, leaseToken: number): Promise<void> {
    await this.rows(
      `UPDATE runner.runs SET lease_expires_at = now() - interval '1 millisecond'
       WHERE id = $1 AND lease_token = $2 AND status = 'running'`,
      [runId, leaseToken],
    );
  }

  /**
   * Moves due runs back to the queue and answers the jobs to publish for them: waiting runs whose
   * wake time has come, queued runs whose job seems lost (its publish failed), and running runs
   * whose runner died and whose job JetStream no longer redelivers. Rows are claimed with
   * `FOR UPDATE SKIP LOCKED`, so the sweepers of several replicas share the work. The caller
   * publishes after this commits: a job must never reach a runner before the run it names is
   * claimable, and a publish that fails leaves a `queued` run the next sweep publishes again.
   */
  async sweep(limit: number, requeueAfterMs: number, recoverAfterMs: number): Promise<SweptRun[]> {
    const rows = await this.rows<{ id: string; dispatch: number; woken: boolean }>(
      `WITH waiting AS (
         SELECT id FROM runner.runs WHERE status = 'waiting' AND wake_at <= now()
         ORDER BY wake_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), lost AS (
         SELECT id FROM runner.runs WHERE status = 'queued'
           AND dispatched_at < now() - make_interval(secs => $2 / 1000.0)
         ORDER BY dispatched_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), orphaned AS (
         SELECT id FROM runner.runs WHERE status = 'running' AND (
           -- Claimed when accepted, never queued: no job of it exists to be redelivered.
           (dispatched_at IS NULL AND lease_expires_at < now())
           -- Its job exists: JetStream redelivers it once the ack wait (the lease) has passed, so
           -- the sweeper steps in only when that did not happen.
           OR (lease_expires_at < now() - make_interval(secs => $3 / 1000.0)
             AND dispatched_at < now() - make_interval(secs => $3 / 1000.0)))
         ORDER BY lease_expires_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), due AS (
         SELECT id, true AS woken FROM waiting
         UNION ALL SELECT id, false FROM lost UNION ALL SELECT id, false FROM orphaned
       )
       UPDATE runner.runs r SET
         status = CASE WHEN r.status = 'waiting' THEN 'queued' ELSE r.status END,
         wake_at = NULL, dispatch = r.dispatch + 1, dispatched_at = now()
       FROM due WHERE r.id = due.id
       RETURNING r.id, r.dispatch, due.woken`,
      [limit, requeueAfterMs, recoverAfterMs],
    );
    return rows.map((row) => ({ runId: row.id, dispatch: row.dispatch, woken: row.woken }));
  }

  /**
   * Wakes a run's waiting step now (an approval was decided). Answers the job to publish when the
   * run was waiting, and `woken` false while the run is running (the step has not come back as
   * waiting yet, or another branch still runs and the run's wake time is about to be written): the
   * caller asks again. A run that is queued, finished or not there has nothing left to wake.
   */
  async wakeStep(
    organizationId: string,
    runId: string,
    nodeId: string,
  ): Promise<{ woken: boolean; job: DispatchedRun | null }> {
    const [row] = await this.rows<{ run_status: string | null; dispatch: number | null }>(
      `WITH run AS (
         SELECT id, status FROM runner.runs WHERE id = $2 AND organization_id = $1
       ), woke AS (
         UPDATE runner.run_steps SET wake_at = now()
          WHERE run_id = (SELECT id FROM run) AND node_id = $3 AND status = 'waiting'
          RETURNING run_id
       ), queued AS (
         UPDATE runner.runs SET status = 'queued', wake_at = NULL, dispatch = dispatch + 1,
           dispatched_at = now()
          WHERE id = (SELECT run_id FROM woke) AND status = 'waiting'
          RETURNING id, dispatch
       )
       SELECT (SELECT status FROM run) AS run_status, (SELECT dispatch FROM queued) AS dispatch`,
      [organizationId, runId, nodeId],
    );
    const job =
      row?.dispatch === null || row?.dispatch === undefined ? null : { runId, dispatch: row.dispatch };
    return { woken: job !== null || row?.run_status !== 'running', job };
  }

  /**
   * Deleted workflows' unfinished runs become `terminated`; their token moves on, so a runner in the
   * middle of one is refused at its next checkpoint and stops. Each workflow is remembered as
   * terminated, under its lock taken exclusively, so a run whose start read the workflow before it
   * was deleted is either terminated here or never recorded (see `WORKFLOW_GATE`). Idempotent.
   */
  async terminateForWorkflows(organizationId: string, workflowIds: readonly string[]): Promise<string[]> {
    return this.dataSource.transaction(async (manager) => {
      // In one order, so two terminations of overlapping workflows cannot deadlock.
      await manager.query(
        `SELECT pg_advisory_xact_lock(hashtext('workflow-runs:' || id))
         FROM (SELECT DISTINCT id FROM unnest($1::text[]) AS id ORDER BY id) AS sorted`,
        [workflowIds],
      );
      // A statement of its own: its snapshot includes every run recorded before the locks were granted.
      const rows = await this.rows<{ id: string }>(
        `WITH remembered AS (
           INSERT INTO runner.terminated_workflows (organization_id, workflow_id)
           SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING
         ), terminated AS (
           UPDATE runner.runs SET status = 'terminated', finished_at = now(), wake_at = NULL,
             lease_expires_at = NULL, lease_token = lease_token + 1
           WHERE organization_id = $1 AND workflow_id = ANY($2::text[])
             AND status IN ('queued', 'running', 'waiting')
           RETURNING id
         ), unfinished_steps AS (
           UPDATE runner.run_steps SET status = 'error', wake_at = NULL,
             error = 'The run was terminated because its workflow was deleted.'
           WHERE run_id IN (SELECT id FROM terminated) AND status IN ('running', 'waiting')
         )
         SELECT id FROM terminated`,
        [organizationId, workflowIds],
        manager,
      );
      return rows.map((row) => row.id);
    });
  }

  async find(organizationId: string, id: string): Promise<RunWithSteps | null> {
    const rows = await this.rows<RunRow>(
      `SELECT ${RUN_COLUMNS}, ${STEPS_JSON} FROM runner.runs r WHERE r.organization_id = $1 AND r.id = $2`,
      [organizationId, id],
    );
    return rows[0] ? toRunWithSteps(rows[0]) : null;
  }

  /** The organization's newest runs, from `runs_recent_idx`. */
  async recent(organizationId: string, limit: number): Promise<RecentRunRecord[]> {
    const rows = await this.rows<{
      id: string;
      workflow_id: string;
      workflow_name: string;
      project_id: string;
      trigger: RunTrigger;
      status: RunRecord['status'];
      created_at: Date;
    }>(
      `SELECT id, workflow_id, workflow_name, project_id, trigger, status, created_at FROM runner.runs
        WHERE organization_id = $1 ORDER BY created_at DESC LIMIT $2`,
      [organizationId, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      workflowId: row.workflow_id,
      workflowName: row.workflow_name,
      projectId: row.project_id,
      trigger: row.trigger,
      status: row.status,
      createdAt: row.created_at,
    }));
  }

  /**
   * The steps that failed since `since`, newest run first. A failed step errors its run, which
   * finishes no earlier than the step failed, so the runs errored since `since` (`runs_errored_idx`)
   * hold every such step. A step's failure time is its start plus its duration.
   */
  async failures(organizationId: string, since: Date, limit: number): Promise<FailedStepRecord[]> {
    const rows = await this.rows<{
      run_id: string;
      workflow_id: string;
      workflow_name: string;
      node_id: string;
      error: string | null;
      at: Date;
    }>(
      `SELECT * FROM (
         SELECT r.id AS run_id, r.workflow_id, r.workflow_name, r.finished_at, s.position, s.node_id, s.error,
                coalesce(s.started_at + make_interval(secs => s.ms / 1000.0), r.finished_at) AS at
           FROM (SELECT id, workflow_id, workflow_name, finished_at FROM runner.runs
                  WHERE organization_id = $1 AND status = 'errored' AND finished_at >= $2
                  ORDER BY finished_at DESC LIMIT $3) r
           JOIN runner.run_steps s ON s.run_id = r.id AND s.status = 'error') failed
        WHERE at >= $2
        ORDER BY finished_at DESC, position
        LIMIT $3`,
      [organizationId, since, limit],
    );
    return rows.map((row) => ({
      runId: row.run_id,
      workflowId: row.workflow_id,
      workflowName: row.workflow_name,
      step: row.node_id,
      error: row.error,
      at: row.at,
    }));
  }

  list(organizationId: string, workflowId: string, page: PageRequest): Promise<Page<RunEntity>> {
    const query = this.dataSource
      .getRepository(RunEntity)
      .createQueryBuilder('run')
      .select([
        'run.id',
        'run.workflowId',
        'run.version',
        'run.trigger',
        'run.triggerNodeId',
        'run.status',
        'run.createdBy',
        'run.createdAt',
      ])
      .where('run.organization_id = :organizationId AND run.workflow_id = :workflowId', {
        organizationId,
        workflowId,
      });
    return paginate(query, page);
  }
}
