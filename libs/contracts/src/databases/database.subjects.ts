import { subject } from '../subjects.js';

export const DatabaseSubjects = {
  list: subject('database.databases.list'),
  create: subject('database.databases.create'),
  get: subject('database.databases.get'),
  update: subject('database.databases.update'),
  delete: subject('database.databases.delete'),
  /**
   * `{id, body: {statements: [{sql, params}]}}` → `{results: QueryResult[]}`, the same as the HTTP
   * route. The runner's `database` step calls it too.
   */
  query: subject('database.databases.query'),
} as const;
