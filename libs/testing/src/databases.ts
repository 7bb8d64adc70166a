import { type ApiClient, expectData } from './api-client.js';
import type { Schemas, WithoutDefaults } from './api-schema.js';

export type Statement = WithoutDefaults<Schemas['QueryStatementDto']>;
export type QueryRows = Schemas['QueryResultDto']['rows'];

/** Creates one of the organization's databases; answers its id. */
export async function createDatabaseIn(api: ApiClient, name: string): Promise<string> {
  return expectData(await api.POST('/api/v1/databases', { body: { name } }), 201).id;
}

/** Runs statements in one batch on a database; answers the answer as it came. */
export function queryDatabase(api: ApiClient, databaseId: string, statements: Statement[]) {
  return api.POST('/api/v1/databases/{id}/query', {
    params: { path: { id: databaseId } },
    body: { statements },
  });
}

/** The rows of each statement of a batch that must succeed. */
export async function rowsOf(
  api: ApiClient,
  databaseId: string,
  statements: Statement[],
): Promise<QueryRows[]> {
  const answer = await queryDatabase(api, databaseId, statements);
  return expectData(answer, 200).results.map((result) => result.rows);
}
