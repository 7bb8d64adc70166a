export * from './execution-slots.js';
export * from './jetstream-queue.js';
export * from './job-definition.js';
export * from './job-worker.js';
