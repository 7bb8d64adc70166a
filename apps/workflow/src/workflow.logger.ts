import { createLogger } from '#common';

/** Structured log lines of this service's own work (the scheduler, calls to other services). */
export const logger = createLogger('workflow');
