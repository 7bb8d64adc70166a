import { subject } from '../subjects.js';

export const DatabaseSubjects = {
  list: subject('database.databases.list'),
  create: subject('database.databases.create'),
  get: subject('database.databases.get'),
  update: subject('database.databases.update'),
  delete: subject('database.databases.delete'),
  /**
   * `{id, body: {statements: [{sql, params}]}}` (`QueryRequest`) → `{results: QueryResult[]}`, the
   * same as the HTTP route, except that params may also be booleans (`ServiceQueryRequestDto`). The
   * runner's `database` step calls it. Request and reply must each fit in one NATS message: a batch
   * whose answer would not is rolled back and answered `result_too_large`. Wait up to
   * `QUERY_REPLY_TIMEOUT_MS` for the answer.
   */
  query: subject('database.databases.query'),
  /** The same request and answer in parts of any size (see `query-stream.protocol.ts`); the gateway's route. */
  queryStream: subject('database.databases.query-stream'),
} as const;
