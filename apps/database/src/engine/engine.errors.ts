// Errors of the engine that the service also sees: kept apart from the engine's code, so the service,
// which runs none of DuckDB, never loads it (the engine worker does).

/** The metadata names a database whose file is not on this replica's volume. */
export class DatabaseFileMissingError extends Error {
  constructor(readonly path: string) {
    super(`No database file at ${path}`);
    this.name = 'DatabaseFileMissingError';
  }
}

/** New batches are refused while the service stops. */
export class EngineStoppingError extends Error {
  constructor() {
    super('The database service is stopping');
    this.name = 'EngineStoppingError';
  }
}
