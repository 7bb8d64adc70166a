export * from './metrics.js';
export * from './hot-metrics.js';
