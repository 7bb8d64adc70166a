import { AsyncLocalStorage } from 'node:async_hooks';

import type { LoggerService } from '@nestjs/common';
import { pino, type Logger } from 'pino';

import { activeTraceFields } from './tracing.js';

export interface RequestContext {
  requestId: string;
  /** Where the request came from, as the gateway saw it: recorded in the audit log, never trusted for access. */
  clientAddress?: string;
  userAgent?: string;
}

/** Carries the request id through every await of a request, so any log line can name it. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

export function currentRequestContext(): RequestContext | undefined {
  return requestContext.getStore();
}

export function currentRequestId(): string | undefined {
  return requestContext.getStore()?.requestId;
}

let root: Logger | undefined;
/** File descriptor the root logger writes to: stdout, but for a command whose stdout is its answer. */
let logFd = 1;

/**
 * Sends every log line of this process to stderr, for a command line tool whose stdout carries its
 * answer (`npm run admin -- … --json | jq`). Call it before anything logs.
 */
export function logToStderr(): void {
  if (root) throw new Error('logToStderr must be called before the first logger is made');
  logFd = 2;
}

/**
 * A service's logger: a child of one root logger per process, so services that share a process (the
 * all-in-one mode) share one pretty-printing worker thread instead of starting one each.
 */
export function createLogger(service: string): Logger {
  root ??= createRootLogger();
  return root.child({ service });
}

function createRootLogger(): Logger {
  const pretty = process.env.LOG_FORMAT === 'pretty';
  const options = {
    level: process.env.LOG_LEVEL ?? 'info',
    base: {},
    timestamp: pino.stdTimeFunctions.isoTime,
    mixin: () => {
      const requestId = currentRequestId();
      const trace = activeTraceFields();
      return requestId === undefined ? trace : { requestId, ...trace };
    },
    ...(pretty
      ? {
          transport: {
            target: 'pino-pretty',
            options: {
              colorize: true,
              ignore: 'pid,hostname',
              messageFormat: '[{service}] {msg}',
              destination: logFd,
            },
          },
        }
      : {}),
  };
  return pretty || logFd === 1 ? pino(options) : pino(options, pino.destination({ fd: logFd, sync: true }));
}

/** Lets Nest write its own start-up and error lines through pino. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string): void {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string): void {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string): void {
    this.logger.trace({ context }, String(message));
  }
}
