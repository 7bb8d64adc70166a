export * from './data-source.factory.js';
export * from './id.util.js';
export * from './pagination.js';
export * from './service-database.module.js';
export * from './batched-lookup.js';
export * from './kysely.js';
export * from './bound-statement.js';
export * from './audit/index.js';
