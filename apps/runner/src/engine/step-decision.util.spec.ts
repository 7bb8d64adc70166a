import type { DiagramEdge } from '#contracts';

import {
  claimsExhausted,
  decideNode,
  edgeFires,
  nextAttemptAt,
  retryPolicyOf,
  type StepOutcomeView,
} from './step-decision.util.js';

const edge = (id: string, source: string, sourceHandle?: string): DiagramEdge => ({
  id,
  source,
  target: 'x',
  ...(sourceHandle === undefined ? {} : { sourceHandle }),
});
const done = (route: string | null = null): StepOutcomeView => ({ status: 'done', route });
const skipped: StepOutcomeView = { status: 'skipped', route: null };
const running: StepOutcomeView = { status: 'running', route: null };

describe('edgeFires', () => {
  it('fires every edge of a done step without a route', () => {
    expect(edgeFires(edge('e', 'a'), done())).toBe(true);
    expect(edgeFires(edge('e', 'a', 'out'), done())).toBe(true);
  });

  it('fires only the edges on the route of a routed step', () => {
    expect(edgeFires(edge('e', 'c', 'true'), done('true'))).toBe(true);
    expect(edgeFires(edge('e', 'c', 'false'), done('true'))).toBe(false);
  });

  it('never fires from a step that is not done', () => {
    expect(edgeFires(edge('e', 'a'), skipped)).toBe(false);
    expect(edgeFires(edge('e', 'a'), running)).toBe(false);
    expect(edgeFires(edge('e', 'a'), undefined)).toBe(false);
  });
});

describe('decideNode', () => {
  const steps = (map: Record<string, StepOutcomeView>) => (id: string) => map[id];

  it('waits while an edge into the node is unsettled', () => {
    expect(decideNode([edge('1', 'a'), edge('2', 'b')], steps({ a: done(), b: running }))).toEqual({
      kind: 'blocked',
    });
    expect(decideNode([edge('1', 'a'), edge('2', 'b')], steps({ a: done() }))).toEqual({ kind: 'blocked' });
  });

  it('runs via the edges that fired once all are settled', () => {
    expect(decideNode([edge('1', 'a'), edge('2', 'b')], steps({ a: done(), b: skipped }))).toEqual({
      kind: 'run',
      via: ['1'],
    });
    expect(
      decideNode([edge('1', 'c', 'true'), edge('2', 'c', 'false')], steps({ c: done('false') })),
    ).toEqual({ kind: 'run', via: ['2'] });
  });

  it('skips a node no edge fired into', () => {
    expect(decideNode([edge('1', 'c', 'false')], steps({ c: done('true') }))).toEqual({ kind: 'skip' });
    expect(decideNode([edge('1', 'a')], steps({ a: skipped }))).toEqual({ kind: 'skip' });
  });
});

describe('retries', () => {
  const now = new Date('2025-01-01T00:00:00.000Z');

  it('reads a retry policy only when it retries', () => {
    expect(retryPolicyOf({})).toBeNull();
    expect(retryPolicyOf({ retry: { attempts: 0, backoffSeconds: 5 } })).toBeNull();
    expect(retryPolicyOf({ retry: { attempts: 2, backoffSeconds: 5 } })).toEqual({
      attempts: 2,
      backoffSeconds: 5,
    });
  });

  it('retries after the backoff until the attempts are used up', () => {
    const policy = { attempts: 2, backoffSeconds: 3 };
    expect(nextAttemptAt(policy, 1, now)?.toISOString()).toBe('2025-01-01T00:00:03.000Z');
    expect(nextAttemptAt(policy, 2, now)?.toISOString()).toBe('2025-01-01T00:00:03.000Z');
    expect(nextAttemptAt(policy, 3, now)).toBeNull();
    expect(nextAttemptAt(null, 1, now)).toBeNull();
  });

  it('gives up on a run after too many pick-ups', () => {
    expect(claimsExhausted(10, 10)).toBe(false);
    expect(claimsExhausted(11, 10)).toBe(true);
  });
});
