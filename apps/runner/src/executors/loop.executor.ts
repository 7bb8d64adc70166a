import { createHash } from 'node:crypto';

import { iterationDiagram, LOOP_MAX_CONCURRENCY, LOOP_MAX_ITEMS, loopBodies } from '#contracts';
import { Injectable } from '@nestjs/common';

import { ChildRuns, childWaitUntil } from '../children/child-runs.service.js';
import type { ChildRunState } from '../children/child-run.repository.js';
import { LoopIterations } from '../loops/loop-iterations.repository.js';
import { RunnerConfig } from '../runner.config.js';
import { RunChanges } from '../runs/run-changes.service.js';
import { toText } from '../templates/template.util.js';
import {
  type NodeExecutor,
  type PreparedStep,
  type StepContext,
  StepFailure,
  type StepResult,
} from './node-executor.js';
import { NodeExecutorProvider } from './node-executor.registry.js';

/** What a waiting loop step keeps between its looks at its iterations. */
interface LoopState {
  /** The items when the loop first started: each later look must render the same ones. */
  count: number;
  digest: string;
  /** Every iteration below this one is final: a look reads only those from here on. */
  settledBelow: number;
  /** Looks in a row that found nothing new: the fallback wake doubles with them. */
  idleLooks: number;
}

interface Items {
  text: string;
  digest: string;
  items: unknown[];
}

/** Iterations' final states read at a time when the loop gathers its results. */
const RESULTS_PAGE = 500;
/** Loop steps whose parsed items one runner keeps between looks. */
const KEPT_ITEMS = 64;

/**
 * Runs its body once per item, each iteration a child run (docs/workflows.md, "Loops") whose
 * diagram is the loop node and its body, started at the loop node with the item as that step's
 * output. The step keeps at most `concurrency` iterations unfinished: it starts what it may, waits
 * durably (the run `waiting`, no process holding it), and is woken when an iteration ends (or at its
 * fallback). Iterations start in index order and are claimed by their key (`<nodeId>#<index>`), so
 * a step run again after a crash starts none twice; finished iterations are final runs and never run
 * again. Once every iteration is final, its output is their replies in item order.
 */
@Injectable()
@NodeExecutorProvider()
export class LoopExecutor implements NodeExecutor {
  readonly type = 'loop';
  /** Starting an iteration is claimed by its key: a step cut off by a crash simply looks again. */
  readonly pure = true;
  readonly textField = 'results';
  /** The parsed items of recent loop steps, by run and node, in use order. */
  private readonly kept = new Map<string, Items>();

  constructor(
    private readonly children: ChildRuns,
    private readonly iterations: LoopIterations,
    private readonly changes: RunChanges,
    private readonly config: RunnerConfig,
  ) {}

  prepare(context: StepContext): PreparedStep {
    const { items: template, concurrency = 1, continueOnError = false } = context.properties;
    if (typeof template !== 'string' || template.trim() === '') throw new StepFailure('items is required.');
    if (
      typeof concurrency !== 'number' ||
      !Number.isInteger(concurrency) ||
      concurrency < 1 ||
      concurrency > LOOP_MAX_CONCURRENCY
    ) {
      throw new StepFailure(`concurrency must be a whole number from 1 to ${LOOP_MAX_CONCURRENCY}.`);
    }
    const items = this.itemsOf(context, context.render(template, 'items'));
    const state = context.state as LoopState | null;
    if (state && (state.count !== items.items.length || state.digest !== items.digest)) {
      throw new StepFailure(
        `items gave other items than when the loop started (${items.items.length} now, ${state.count} then); the steps it reads must not change while it runs.`,
      );
    }
    return {
      input: JSON.stringify({
        items: items.items.length,
        concurrency,
        continueOnError: continueOnError === true,
      }),
      run: () => this.look(context, items.items, items.digest, state, concurrency, continueOnError === true),
    };
  }

  /** The items as a list, parsed once per text: a loop step is run again at every wake. */
  private itemsOf(context: StepContext, text: string): Items {
    const key = `${context.run.id}\u0000${context.node.id}`;
    const known = this.kept.get(key);
    this.kept.delete(key);
    if (known?.text === text) {
      this.kept.set(key, known);
      return known;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new StepFailure(`items must give a JSON array; it gave ${quoted(text)}, which is not JSON.`);
    }
    if (!Array.isArray(parsed)) {
      throw new StepFailure(`items must give a JSON array; it gave ${quoted(text)}.`);
    }
    if (parsed.length > LOOP_MAX_ITEMS) {
      throw new StepFailure(`items gave ${parsed.length} items; a loop takes at most ${LOOP_MAX_ITEMS}.`);
    }
    const items: Items = {
      text,
      digest: createHash('sha256').update(text).digest('base64url'),
      items: parsed,
    };
    this.kept.set(key, items);
    for (const oldest of this.kept.keys()) {
      if (this.kept.size <= KEPT_ITEMS) break;
      this.kept.delete(oldest);
    }
    return items;
  }

  /**
   * One look at the iterations: fail at the first that failed (unless `continueOnError`), start as
   * many as `concurrency` allows, and wait; or, once all are final, gather their results.
   */
  private async look(
    context: StepContext,
    items: readonly unknown[],
    digest: string,
    state: LoopState | null,
    concurrency: number,
    continueOnError: boolean,
  ): Promise<StepResult> {
    const loopId = context.node.id;
    const count = items.length;
    if (count === 0) return { status: 'done', output: resultsOutput([], 0) };
    const from = state?.settledBelow ?? 0;
    const window = await this.iterations.window(context.run.id, loopId, from);
    if (window.firstFailure && !continueOnError) await this.fail(context, window.firstFailure);
    const startFrom = window.startedUpTo;
    const starting = Math.max(0, Math.min(concurrency - window.unfinished, count - startFrom));
    if (starting > 0) {
      const diagram = this.iterationDiagramOf(context);
      await this.children.startIterations(
        context,
        Array.from({ length: starting }, (_, offset) => {
          const index = startFrom + offset;
          const item = toText(items[index]);
          return {
            iteration: index,
            triggerNodeId: loopId,
            diagram,
            input: item,
            triggerOutput: { item, index: String(index) },
          };
        }),
      );
    }
    const started = startFrom + starting;
    if (started === count && window.unfinished === 0 && starting === 0) {
      return this.gather(context, count, continueOnError);
    }
    const settledBelow = window.firstUnfinished ?? startFrom;
    const progressed = starting > 0 || settledBelow > from || state === null;
    const idleLooks = progressed ? 0 : (state?.idleLooks ?? 0) + 1;
    return {
      status: 'waiting',
      until: childWaitUntil(context.now(), idleLooks),
      state: { count, digest, settledBelow, idleLooks } satisfies LoopState,
      output: {
        count: String(count),
        started: String(started),
        finished: String(from + window.finished),
      },
    };
  }

  private iterationDiagramOf(context: StepContext) {
    const body = loopBodies(context.run.diagram).get(context.node.id);
    if (!body) throw new StepFailure(`Node "${context.node.id}" is not a loop of the run's diagram.`);
    return iterationDiagram(context.run.diagram, context.node.id, body);
  }

  /** An iteration failed: the ones still going are cancelled, and the step fails naming it. */
  private async fail(
    context: StepContext,
    failure: { iteration: number; runId: string; error: string | null },
  ): Promise<never> {
    const message = `Iteration ${failure.iteration} of loop "${context.node.id}" (run ${failure.runId}) failed: ${failure.error ?? 'no error was recorded'}`;
    const cancelled = `Cancelled: iteration ${failure.iteration} of loop "${context.node.id}" (run ${failure.runId}) failed.`;
    const { organizationId } = context.run;
    const stopped = await this.iterations.terminateUnfinished(
      organizationId,
      context.run.id,
      context.node.id,
      cancelled,
    );
    for (const runId of stopped) {
      this.changes.cancelled({ runId, organizationId, message: cancelled });
      this.changes.changed(runId, 'terminated');
    }
    throw new StepFailure(message);
  }

  /** Every iteration is final: their replies (or, with `continueOnError`, errors) in item order. */
  private async gather(context: StepContext, count: number, continueOnError: boolean): Promise<StepResult> {
    const limit = this.config.STEP_OUTPUT_MAX_BYTES;
    const results: unknown[] = [];
    let failed = 0;
    let bytes = 0;
    for (let from = 0; from < count;) {
      const page = await this.children.ofStep(context, { fromIteration: from, limit: RESULTS_PAGE });
      if (page.length === 0) break;
      for (const child of page) {
        const { value, failure } = resultOf(child);
        if (failure) {
          if (!continueOnError) await this.fail(context, { iteration: child.iteration ?? from, ...failure });
          failed += 1;
        }
        bytes += Buffer.byteLength(JSON.stringify(value) ?? 'null') + 1;
        if (bytes > limit) {
          throw new StepFailure(
            `Node "${context.node.id}": the results of its iterations come to more than ${limit} bytes, past the most a step may keep (STEP_OUTPUT_MAX_BYTES); have each iteration reply with less.`,
          );
        }
        results.push(value);
      }
      from = (page.at(-1)?.iteration ?? count) + 1;
    }
    if (results.length !== count) {
      throw new StepFailure(
        `Node "${context.node.id}": ${results.length} of its ${count} iterations were found; the loop cannot give its results.`,
      );
    }
    return { status: 'done', output: resultsOutput(results, failed) };
  }
}

/** An iteration's entry in `results`: its reply, parsed when it is JSON; or its error and run. */
function resultOf(child: ChildRunState): { value: unknown; failure?: { error: string; runId: string } } {
  if (child.status === 'complete') {
    const reply = child.reply ?? '';
    try {
      return { value: JSON.parse(reply) };
    } catch {
      return { value: reply };
    }
  }
  const failure = { error: child.error ?? `The iteration ended ${child.status}.`, runId: child.id };
  return { value: failure, failure };
}

function resultsOutput(results: readonly unknown[], failed: number): Record<string, string> {
  return { results: JSON.stringify(results), count: String(results.length), failed: String(failed) };
}

/** Part of a text for a message: a template can make it as long as a property may be. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text);
}
