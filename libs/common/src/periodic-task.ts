/**
 * Runs `work` every `intervalMs`, counted from the end of the previous run so that runs never
 * overlap, until `stop()`, which waits for a run in progress: a poller is done with its database and
 * NATS connections before they close. (`@nestjs/schedule` intervals do neither.)
 */
export class PeriodicTask {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private kicked = false;

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

  /** Runs the work now rather than at the next tick; during a run, once more right after it. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.kicked = true;
      return;
    }
    clearTimeout(this.timer);
    this.next(0);
  }

  private next(delayMs = this.intervalMs): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = Promise.resolve()
        .then(this.work)
        .catch(this.onError)
        .finally(() => {
          this.running = undefined;
          const kicked = this.kicked;
          this.kicked = false;
          this.next(kicked ? 0 : this.intervalMs);
        });
    }, delayMs);
  }
}
