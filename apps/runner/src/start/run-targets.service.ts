import { DomainException, mapConcurrently } from '#common';
import {
  type Diagram,
  type DiagramIssue,
  type Principal,
  type RunTarget,
  validateDiagram,
  WorkflowSubjects,
} from '#contracts';
import { RpcClient } from '#nats';
import { Injectable } from '@nestjs/common';

/** What a start runs, its diagram always present, with the diagram's issues (none for a runnable one). */
export interface ResolvedTarget extends RunTarget {
  diagram: Diagram;
  issues: readonly DiagramIssue[];
}

interface KnownVersion {
  version: number;
  timeZone: string;
  diagram: Diagram;
  issues: readonly DiagramIssue[];
}

/** Diagrams a `runTargets` reply left out, asked for at once. */
const LEFT_OUT_AT_ONCE = 8;

/** Published versions held, one per workflow: the one last seen live. */
export const KNOWN_VERSIONS_MAX = 1_000;

/**
 * Asks workflow what a start runs, holding the live version of each workflow it has seen. A published
 * version never changes (a publish makes a new number), so holding its diagram and the diagram's
 * issues is safe for as long as it stays live; what can change is asked of workflow on every start,
 * with the number held: whether the workflow still exists for this organization, its name, whether it
 * is paused, and which version is live. When the live version is another one the answer carries its
 * diagram, which then replaces the one held. So a publish, a pause or a delete is seen by the next
 * start exactly as without the cache; what the cache saves is workflow reading and sending the
 * diagram, and the runner validating it, on every start. Draft runs are never held (a draft changes
 * in place). The diagrams held are shared by the runs started from them and never modified.
 */
@Injectable()
export class RunTargets {
  private readonly known = new Map<string, KnownVersion>();

  constructor(private readonly rpc: RpcClient) {}

  async resolve(principal: Principal, workflowId: string, draft: boolean): Promise<ResolvedTarget> {
    const held = draft ? undefined : this.known.get(workflowId);
    const target = await this.rpc.request(WorkflowSubjects.runTarget, principal, {
      workflowId,
      draft,
      ...(held ? { knownVersion: held.version } : {}),
    });
    return this.resolved(workflowId, draft, held, target);
  }

  /**
   * `resolve` for the live versions of many workflows, in one request to workflow (and one more for
   * each diagram its reply had no room for): each workflow's target, or the error `resolve` would
   * have thrown for it.
   */
  async resolvePublished(
    principal: Principal,
    workflowIds: readonly string[],
  ): Promise<Map<string, ResolvedTarget | DomainException>> {
    const asked = [...new Set(workflowIds)].map((workflowId) => ({
      workflowId,
      held: this.known.get(workflowId),
    }));
    const { targets } = await this.rpc.request(WorkflowSubjects.runTargets, principal, {
      workflows: asked.map(({ workflowId, held }) =>
        held ? { workflowId, knownVersion: held.version } : { workflowId },
      ),
    });
    const resolved = new Map<string, ResolvedTarget | DomainException>();
    await mapConcurrently(targets, LEFT_OUT_AT_ONCE, async (answer, index) => {
      const { workflowId, held } = asked[index];
      if ('error' in answer) {
        resolved.set(workflowId, new DomainException(answer.error.code, answer.error.message));
      } else if (answer.diagramLeftOut) {
        resolved.set(
          workflowId,
          await this.resolve(principal, workflowId, false).catch((error: unknown) => {
            if (error instanceof DomainException) return error;
            throw error;
          }),
        );
      } else {
        resolved.set(workflowId, this.resolved(workflowId, false, held, answer));
      }
    });
    return resolved;
  }

  /** Workflow's answer for one workflow, with the diagram held when it was left out; the version is held from now on. */
  private resolved(
    workflowId: string,
    draft: boolean,
    held: KnownVersion | undefined,
    target: RunTarget,
  ): ResolvedTarget {
    if (target.diagram === null) {
      if (!held || target.version !== held.version) {
        // Workflow leaves a diagram out only for the version named; anything else is a broken peer.
        throw new Error(`workflow answered no diagram for version ${target.version} of ${workflowId}`);
      }
      this.remember(workflowId, held);
      return { ...target, timeZone: held.timeZone, diagram: held.diagram, issues: held.issues };
    }
    const issues = validateDiagram(target.diagram);
    if (!draft && target.version !== null) {
      this.remember(workflowId, {
        version: target.version,
        timeZone: target.timeZone,
        diagram: target.diagram,
        issues,
      });
    }
    return { ...target, diagram: target.diagram, issues };
  }

  /** Most recently used last, so the first entry is the one to drop when full. */
  private remember(workflowId: string, version: KnownVersion): void {
    this.known.delete(workflowId);
    this.known.set(workflowId, version);
    if (this.known.size > KNOWN_VERSIONS_MAX) {
      const oldest = this.known.keys().next();
      if (!oldest.done) this.known.delete(oldest.value);
    }
  }
}
