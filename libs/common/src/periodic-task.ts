/**
 * Runs `work` every `intervalMs`, counted from the end of the previous run so that runs never
 * overlap, until `stop()`, which waits for a run in progress: a poller is done with its database and
 * NATS connections before they close. (`@nestjs/schedule` intervals do neither.)
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;

  constructor(
    private readonly intervalMs: number,
    private readonly work: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.next();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private next(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = Promise.resolve()
        .then(this.work)
        .catch(this.onError)
        .finally(() => {
          this.running = undefined;
          this.next();
        });
    }, this.intervalMs);
  }
}
