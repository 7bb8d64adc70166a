import { WebSocket } from 'undici';

/**
 * A benchmark's view into a Node process started with `--inspect=127.0.0.1:0`, through the DevTools
 * protocol: a full garbage collection, then the heap it keeps and the resources (sockets, timers,
 * file handles) keeping its event loop alive. Read after a collection, a heap that grows under a steady
 * load is a leak, where RSS would mostly show how much the heap was allowed to grow.
 */
export class InspectedProcess {
  private nextId = 1;
  private readonly pending = new Map<number, (result: unknown) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) this.pending.get(message.id)?.(message.result);
    });
  }

  /** Connects to the inspector a process announced on its output (`Debugger listening on ws://…`). */
  static async fromOutput(output: string): Promise<InspectedProcess> {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
    if (!url) throw new Error('the process did not start its inspector (NODE_OPTIONS=--inspect=127.0.0.1:0)');
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    return new InspectedProcess(socket);
  }

  private send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, (result) => {
        this.pending.delete(id);
        resolve(result);
      });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Heap used after a full collection (MiB), and the live resources by type. */
  async afterCollection(): Promise<{ heapMiB: number; resources: Record<string, number> }> {
    await this.send('HeapProfiler.collectGarbage');
    const answer = (await this.send('Runtime.evaluate', {
      expression: `JSON.stringify({
        heap: process.memoryUsage().heapUsed,
        resources: process.getActiveResourcesInfo().reduce((byType, type) => ({ ...byType, [type]: (byType[type] ?? 0) + 1 }), {}),
      })`,
      returnByValue: true,
    })) as { result: { value: string } };
    const { heap, resources } = JSON.parse(answer.result.value) as {
      heap: number;
      resources: Record<string, number>;
    };
    return { heapMiB: heap / 1024 / 1024, resources };
  }

  /**
   * A CPU profile of the process while `during` runs (the DevTools `.cpuprofile` format), sampled
   * every `intervalMicros`: where a benchmark's time goes, taken over the measured load only.
   */
  async profile<T>(during: () => Promise<T>, intervalMicros = 200): Promise<{ result: T; profile: unknown }> {
    await this.send('Profiler.enable');
    await this.send('Profiler.setSamplingInterval', { interval: intervalMicros });
    await this.send('Profiler.start');
    const result = await during();
    const { profile } = (await this.send('Profiler.stop')) as { profile: unknown };
    return { result, profile };
  }

  close(): void {
    this.socket.close();
  }
}
