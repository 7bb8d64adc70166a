import type { RunStepDto, WorkflowRunDto } from '#contracts';

import { SentRun } from './run-events.util.js';

const step = (nodeId: string, status: RunStepDto['status'], extra: Partial<RunStepDto> = {}): RunStepDto => ({
  nodeId,
  status,
  via: [],
  input: null,
  output: null,
  error: null,
  ms: 1,
  startedAt: '2026-11-30T10:00:00.000Z',
  ...extra,
});

const run = (status: WorkflowRunDto['status'], steps: RunStepDto[]): WorkflowRunDto => ({
  id: 'r1',
  workflowId: 'w1',
  version: 1,
  trigger: 'api',
  triggerNodeId: 't',
  status,
  createdBy: null,
  createdAt: '2026-11-30T10:00:00.000Z',
  input: '',
  reply: null,
  error: null,
  steps,
  diagram: { nodes: [], edges: [] },
});

const names = (events: string[]) => events.map((event) => event.split('\n')[0]);

describe('SentRun', () => {
  it('sends each changed step once, then the status', () => {
    const sent = new SentRun(run('running', [step('t', 'done'), step('pay', 'running')]));
    expect(sent.eventsTo(run('running', [step('t', 'done'), step('pay', 'running')]))).toEqual([]);
    const events = sent.eventsTo(run('complete', [step('t', 'done'), step('pay', 'done')]));
    expect(names(events)).toEqual(['event: step', 'event: status']);
    expect(events[0]).toContain('"nodeId":"pay"');
  });

  it('tells a compensation from the step of the same node it undid', () => {
    const done = [step('t', 'done'), step('pay', 'done'), step('ship', 'error')];
    const sent = new SentRun(run('rollingBack', done));
    const undoing = [...done, step('pay', 'running', { compensation: true })];
    expect(names(sent.eventsTo(run('rollingBack', undoing)))).toEqual(['event: step']);
    // Read again unchanged: nothing to send, not the two steps of `pay` in turn.
    expect(sent.eventsTo(run('rollingBack', undoing))).toEqual([]);
    const undone = [...done, step('pay', 'done', { compensation: true })];
    const events = sent.eventsTo(run('errored', undone));
    expect(names(events)).toEqual(['event: step', 'event: status']);
    expect(events[0]).toContain('"compensation":true');
  });
});
