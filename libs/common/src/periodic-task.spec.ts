import { PeriodicTask } from './periodic-task.js';

describe('PeriodicTask', () => {
  it('never overlaps runs, goes on after a failure, and waits for the run in progress on stop', async () => {
    let active = 0;
    let overlapped = false;
    let runs = 0;
    let release: (() => void) | undefined;
    const errors: unknown[] = [];
    const third = new Promise<void>((resolve) => {
      release = resolve;
    });
    let finishedThird = false;
    const task = new PeriodicTask(
      1,
      async () => {
        active += 1;
        overlapped ||= active > 1;
        runs += 1;
        try {
          if (runs === 1) throw new Error('first run fails');
          if (runs === 3) {
            await third;
            finishedThird = true;
          }
        } finally {
          active -= 1;
        }
      },
      (error) => errors.push(error),
    );
    task.start();
    while (runs < 3) await new Promise((resolve) => setTimeout(resolve, 1));
    const stopped = task.stop();
    release?.();
    await stopped;
    expect(finishedThird).toBe(true);
    expect(overlapped).toBe(false);
    expect(errors).toEqual([new Error('first run fails')]);
    const after = runs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(runs).toBe(after);
  });

  it('runs at once when kicked, and once more right after a run that a kick interrupted', async () => {
    let runs = 0;
    let release: (() => void) | undefined;
    const ran: Array<() => void> = [];
    const task = new PeriodicTask(
      60_000,
      async () => {
        runs += 1;
        ran.shift()?.();
        if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
      },
      () => undefined,
    );
    const next = () => new Promise<void>((resolve) => ran.push(resolve));
    task.start();
    const first = next();
    task.kick();
    await first;
    const second = next();
    task.kick(); // During the first run: it runs again as soon as the first ends.
    release?.();
    await second;
    expect(runs).toBe(2);
    await task.stop();
    task.kick();
    expect(runs).toBe(2);
  });
});
