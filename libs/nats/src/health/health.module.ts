import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';

import { EventLoopHealthIndicator } from './event-loop.health.js';
import { NatsServerConnection } from './nats-server-connection.js';
import { NatsHealthIndicator } from './nats.health.js';

/**
 * Terminus and our indicators, for an app to build its `ReadinessChecks` from (Terminus's
 * `TypeOrmHealthIndicator` included) and to serve its health controller.
 */
@Module({
  imports: [TerminusModule.forRoot()],
  providers: [EventLoopHealthIndicator, NatsHealthIndicator, NatsServerConnection],
  exports: [TerminusModule, EventLoopHealthIndicator, NatsHealthIndicator, NatsServerConnection],
})
export class HealthModule {}
