import pg from 'pg';

export const ADMIN_DATABASE_URL =
  process.env.TEST_ADMIN_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function createDatabase(name: string): Promise<void> {
  return withAdmin(async (client) => {
    await client.query(`CREATE DATABASE "${name}"`);
  });
}

export function dropDatabase(name: string): Promise<void> {
  return withAdmin(async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}

/** A database of its own for a spec that tests a repository against real Postgres. */
export function scratchDatabase(prefix: string): {
  url: string;
  create(): Promise<void>;
  drop(): Promise<void>;
} {
  const name = `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  return { url: databaseUrl(name), create: () => createDatabase(name), drop: () => dropDatabase(name) };
}

/** Makes a database refuse new connections and ends the open ones, as an outage would. */
export function cutOffDatabase(name: string): Promise<void> {
  return withAdmin(async (client) => {
    await client.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name]);
  });
}

export function restoreDatabase(name: string): Promise<void> {
  return withAdmin(async (client) => {
    await client.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
  });
}
