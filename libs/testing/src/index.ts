export * from './admin-cli.js';
export * from './api-client.js';
export * from './free-port.js';
export * from './members.js';
export * from './postgres.js';
export * from './service-process.js';
export * from './test-stack.js';
export * from './wait.util.js';
