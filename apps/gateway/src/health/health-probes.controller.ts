import { EventLoopHealthIndicator, HealthCheckFilter, ReadinessChecks } from '#nats';
import { Controller, Get, UseFilters } from '@nestjs/common';
import { HealthCheck, type HealthCheckResult, HealthCheckService } from '@nestjs/terminus';
import { ApiExcludeController } from '@nestjs/swagger';

import { Public } from '../auth/public.decorator.js';

/**
 * The gateway's probes for Kubernetes, beside the contract's constant `/api/health`. Readiness is
 * the gateway's own NATS connections only: with a service down the gateway still answers (503
 * `service_unavailable` on that service's routes, which tells a client more than a refused
 * connection), and asking every service on every probe would multiply their load by the replicas.
 * In the all-in-one process it also covers the services beside it, since this is that process's probe.
 */
@ApiExcludeController()
@Public()
@Controller('health')
@UseFilters(HealthCheckFilter)
export class HealthProbesController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly eventLoop: EventLoopHealthIndicator,
    private readonly readiness: ReadinessChecks,
  ) {}

  @Get('live')
  @HealthCheck({ noCache: true })
  live(): Promise<HealthCheckResult> {
    return this.health.check([() => this.eventLoop.check('event_loop')]);
  }

  @Get('ready')
  @HealthCheck({ noCache: true })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([...this.readiness.checks]);
  }
}
