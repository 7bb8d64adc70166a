import { Controller, Get, UseFilters } from '@nestjs/common';
import { HealthCheck, type HealthCheckResult, HealthCheckService } from '@nestjs/terminus';

import { EventLoopHealthIndicator } from './event-loop.health.js';
import { HealthCheckFilter } from './health-check.filter.js';
import { NatsServerConnection } from './nats-server-connection.js';
import { NatsHealthIndicator } from './nats.health.js';
import { ReadinessChecks } from './readiness-checks.js';

/**
 * The probes on a service's health port. `/health` answers as readiness too: the benchmarks and some
 * tests poll it to know a service is up.
 */
@Controller('health')
@UseFilters(HealthCheckFilter)
export class ServiceHealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly eventLoop: EventLoopHealthIndicator,
    private readonly nats: NatsHealthIndicator,
    private readonly server: NatsServerConnection,
    private readonly readiness: ReadinessChecks,
  ) {}

  @Get('live')
  @HealthCheck({ noCache: true })
  live(): Promise<HealthCheckResult> {
    return this.health.check([() => this.eventLoop.check('event_loop')]);
  }

  @Get(['', 'ready'])
  @HealthCheck({ noCache: true })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () => this.nats.pingCheck('nats', this.server.get()),
      ...this.readiness.checks,
    ]);
  }
}
