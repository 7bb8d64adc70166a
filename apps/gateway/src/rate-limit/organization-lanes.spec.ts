import { OrganizationLanes } from './organization-lanes.js';

/** A task that runs until `finish` is called; `started` tells whether it has begun. */
function task() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const state = { started: false, finish: () => finish() };
  return {
    state,
    run: () => {
      state.started = true;
      return done;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('OrganizationLanes', () => {
  let now = 0;
  const lanes = () => new OrganizationLanes(2, () => now);

  beforeEach(() => {
    now = 10_000;
  });

  it('bounds nothing while one organization is served alone', async () => {
    const subject = lanes();
    const tasks = Array.from({ length: 5 }, task);
    const runs = tasks.map((t) => subject.run('a', t.run));
    await settle();
    expect(tasks.every((t) => t.state.started)).toBe(true);
    tasks.forEach((t) => t.state.finish());
    await Promise.all(runs);
  });

  it("holds an organization's requests past the limit while another is served, in order", async () => {
    const subject = lanes();
    const other = task();
    const otherRun = subject.run('b', other.run);
    const tasks = Array.from({ length: 4 }, task);
    const runs = tasks.map((t) => subject.run('a', t.run));
    await settle();
    expect(tasks.map((t) => t.state.started)).toEqual([true, true, false, false]);
    // Another organization's request is not held behind them.
    const third = task();
    const thirdRun = subject.run('c', third.run);
    await settle();
    expect(third.state.started).toBe(true);

    tasks[1]?.state.finish();
    await settle();
    expect(tasks.map((t) => t.state.started)).toEqual([true, true, true, false]);
    tasks[0]?.state.finish();
    await settle();
    expect(tasks[3]?.state.started).toBe(true);
    [...tasks, other, third].forEach((t) => t.state.finish());
    await Promise.all([...runs, otherRun, thirdRun]);
  });

  it('lets the held requests all go once the other organization has been quiet a second', async () => {
    const subject = lanes();
    const other = task();
    const otherRun = subject.run('b', other.run);
    other.state.finish();
    await otherRun;
    const tasks = Array.from({ length: 5 }, task);
    const runs = tasks.map((t) => subject.run('a', t.run));
    await settle();
    expect(tasks.filter((t) => t.state.started)).toHaveLength(2);
    now += 1_000;
    tasks[0]?.state.finish();
    await settle();
    expect(tasks.every((t) => t.state.started)).toBe(true);
    tasks.forEach((t) => t.state.finish());
    await Promise.all(runs);
  });

  it('frees a place when a request fails', async () => {
    const subject = lanes();
    const other = task();
    const otherRun = subject.run('b', other.run);
    const failing = subject.run('a', () => Promise.reject(new Error('boom')));
    const holding = task();
    const holdingRun = subject.run('a', holding.run);
    const next = task();
    const nextRun = subject.run('a', next.run);
    await expect(failing).rejects.toThrow('boom');
    await settle();
    expect(next.state.started).toBe(true);
    [other, holding, next].forEach((t) => t.state.finish());
    await Promise.all([otherRun, holdingRun, nextRun]);
  });
});
