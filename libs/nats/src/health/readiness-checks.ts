import type { HealthIndicatorFunction } from '@nestjs/terminus';

/**
 * What an app's readiness depends on: its database, the connections it makes itself, its streams.
 * Each app provides one, built from its own providers; a service's health controller adds the
 * connection the RPC server listens on.
 */
export class ReadinessChecks {
  constructor(readonly checks: readonly HealthIndicatorFunction[]) {}
}
