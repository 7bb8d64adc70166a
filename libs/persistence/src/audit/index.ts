export * from './audit-entry.js';
export * from './audit-log.js';
export * from './audit-migration.js';
export * from './audit-retention.js';
