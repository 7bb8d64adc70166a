import { CodeWorkerPool } from './code-worker-pool.js';
import type { SandboxJob } from './sandbox.js';

/**
 * A stand-in for code.worker.js that the test drives through the job's `code`: `spin` never answers,
 * `exit` dies, `wait:<ms>` answers after a while; anything else is answered at once with the worker's
 * thread id, so that a test can count the workers.
 */
const FAKE_WORKER = new URL(
  `data:text/javascript,${encodeURIComponent(`
    import { parentPort, threadId } from 'node:worker_threads';
    parentPort.on('message', (job) => {
      if (job.code === 'spin') for (;;);
      if (job.code === 'exit') process.exit(3);
      const wait = job.code.startsWith('wait:') ? Number(job.code.slice(5)) : 0;
      setTimeout(() => parentPort.postMessage({ type: 'outcome', outcome: { ok: true, json: String(threadId) } }), wait);
    });
    parentPort.postMessage({ type: 'ready' });
  `)}`,
);

const BROKEN_WORKER = new URL(
  `data:text/javascript,${encodeURIComponent('throw new Error("no sandbox here");')}`,
);

function job(code: string, timeoutMs = 1000): SandboxJob {
  return {
    code,
    language: 'javascript',
    parameters: [],
    setup: '() => []',
    input: '',
    timeoutMs,
    memoryBytes: 1,
    resultMaxLength: 1,
  };
}

describe('CodeWorkerPool', () => {
  const pools: CodeWorkerPool[] = [];
  const poolOf = (size: number, workerUrl = FAKE_WORKER, lost: string[] = []) => {
    const pool = new CodeWorkerPool({
      size,
      graceMs: 100,
      workerUrl,
      onWorkerLost: (reason) => lost.push(reason),
    });
    pools.push(pool);
    return pool;
  };

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });

  it('runs jobs on at most `size` workers, the others waiting their turn', async () => {
    const pool = poolOf(2);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => pool.run(job('wait:50'))));
    const workers = new Set(outcomes.map((outcome) => (outcome.ok ? outcome.json : 'failed')));
    expect(workers.size).toBe(2);
    expect(workers.has('failed')).toBe(false);
  });

  it('terminates a worker that runs past its job time cap and grace, and replaces it', async () => {
    const lost: string[] = [];
    const pool = poolOf(1, FAKE_WORKER, lost);
    const first = await pool.run(job('now'));
    const started = Date.now();
    const spinning = pool.run(job('spin', 200));
    const behind = pool.run(job('now'));
    expect(await spinning).toEqual({ ok: false, kind: 'timeout', message: '' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    const next = await behind;
    expect(next.ok).toBe(true);
    // Answered by a new worker: the spinning one is gone.
    expect(next).not.toEqual(first);
    expect(lost).toEqual(['a code worker ran past its job time cap and was terminated']);
  });

  it('keeps the caller free while a worker spins', async () => {
    const pool = poolOf(1);
    await pool.run(job('now'));
    const spinning = pool.run(job('spin', 400));
    const delays: number[] = [];
    for (let tick = 0; tick < 10; tick += 1) {
      const before = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 10));
      delays.push(Date.now() - before);
    }
    expect(Math.max(...delays)).toBeLessThan(200);
    await spinning;
  });

  it('fails the job of a worker that exits, and goes on with a new one', async () => {
    const pool = poolOf(1);
    expect(await pool.run(job('exit'))).toEqual({
      ok: false,
      kind: 'crashed',
      message: 'a code worker exited (code 3)',
    });
    expect((await pool.run(job('now'))).ok).toBe(true);
  });

  it('fails waiting jobs when no worker can start, instead of keeping them waiting', async () => {
    const pool = poolOf(2, BROKEN_WORKER);
    const outcomes = await Promise.all([pool.run(job('a')), pool.run(job('b')), pool.run(job('c'))]);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({
        ok: false,
        kind: 'crashed',
        message: expect.stringContaining('the code sandbox could not start'),
      });
    }
    expect(outcomes[0]).toMatchObject({ message: expect.stringContaining('no sandbox here') });
  });

  it('drops a waiting job whose signal aborts, and leaves the running one be', async () => {
    const pool = poolOf(1);
    await pool.run(job('now'));
    const controller = new AbortController();
    const running = pool.run(job('wait:200'), controller.signal);
    const waiting = pool.run(job('now'), controller.signal);
    controller.abort(new Error('run lost'));
    await expect(waiting).rejects.toThrow('run lost');
    expect((await running).ok).toBe(true);
  });

  it('rejects what is not done when it closes', async () => {
    const pool = poolOf(1);
    await pool.run(job('now'));
    const rejected = [pool.run(job('wait:5000')), pool.run(job('now'))].map((outcome) =>
      expect(outcome).rejects.toThrow('The code sandbox is closed.'),
    );
    await pool.close();
    await Promise.all(rejected);
    await expect(pool.run(job('now'))).rejects.toThrow('The code sandbox is closed.');
  });
});
