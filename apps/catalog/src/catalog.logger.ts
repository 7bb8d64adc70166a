import { createLogger } from '#common';

/** Structured log lines of this service's own work (finishing deletes, calls to other services). */
export const logger = createLogger('catalog');
