export * from './event-loop.health.js';
export * from './health-check.filter.js';
export * from './health.module.js';
export * from './nats-server-connection.js';
export * from './nats.health.js';
export * from './readiness-checks.js';
export * from './service-health.controller.js';
