import type { HealthCheckResult, HealthIndicatorResult } from '@nestjs/terminus';

/**
 * What one app (a service or the gateway) offers the processes that run it: its own `main.ts`, one
 * service per process as `deploy/` runs it, and the all-in-one launcher, which runs several apps in
 * one process. Each app exports one as the default export of `<app>.app.ts`; importing that file loads
 * nothing else, so migrating or picking a subset of apps loads only what is needed.
 */
export interface AppEntry {
  readonly name: string;
  /** Brings the app's schema up to date; an app without a database has none. */
  migrate?(): Promise<void>;
  start(options: AppStartOptions): Promise<RunningApp>;
}

export interface AppStartOptions {
  /**
   * Alone in its process: the app serves its own health port and stops on SIGTERM. Otherwise the
   * launcher does both for every app it runs.
   */
  standalone: boolean;
  /** The apps already running in this process, whose readiness the gateway reports as its own. */
  companions?: readonly RunningApp[];
}

export interface RunningApp {
  readonly name: string;
  /** The app's readiness, as one indicator named after the app; `down` with the failing checks. */
  ready(): Promise<HealthIndicatorResult>;
  /** The HTTP address it serves, for the gateway. */
  readonly url?: string;
  close(): Promise<void>;
}

/**
 * An app's readiness probe as one indicator named after the app, for another app's probe to include:
 * `up`, or `down` with the checks that failed.
 */
export async function readinessOf(
  name: string,
  probe: () => Promise<HealthCheckResult>,
): Promise<HealthIndicatorResult> {
  try {
    await probe();
    return { [name]: { status: 'up' } };
  } catch (error) {
    // Terminus refuses with the whole result as the exception's response.
    const result = (error as { getResponse?: () => HealthCheckResult }).getResponse?.();
    if (!result) return { [name]: { status: 'down', message: String(error) } };
    return { [name]: { status: 'down', ...result.error } };
  }
}
