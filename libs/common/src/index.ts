export * from './config.util.js';
export * from './domain.exception.js';
export * from './error-code.js';
export * from './logger.js';
export * from './page.js';
export * from './periodic-task.js';
export * from './service.config.js';
export * from './validation.util.js';
