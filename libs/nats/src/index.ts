export * from './connection.js';
export * from './jetstream/index.js';
export * from './rpc-data.decorator.js';
export * from './rpc-envelope.interceptor.js';
export * from './rpc-exception.filter.js';
export * from './rpc.client.js';
export * from './service-bootstrap.js';
export * from './validation.pipe.js';
