import { apiKey } from '@better-auth/api-key';
import { betterAuth, type BetterAuthOptions } from 'better-auth';
import { getMigrations } from 'better-auth/db/migration';
import { bearer, organization } from 'better-auth/plugins';
import pg from 'pg';
import type { Logger } from 'pino';

export const AUTH_SCHEMA = 'auth';
export const API_KEY_PREFIX = 'fm_';

export interface AuthSettings {
  databaseUrl: string;
  secret: string;
  publicUrl: string;
}

/**
 * better-auth owns members, sessions, organizations and organization keys, in the `auth` schema of
 * catalog's database. Its own per-key rate limit is off: the gateway limits every credential alike.
 */
export function createAuth(settings: AuthSettings, pool: pg.Pool) {
  return betterAuth(authOptions(settings, pool));
}

function authOptions(settings: AuthSettings, pool: pg.Pool) {
  return {
    database: pool,
    secret: settings.secret,
    baseURL: settings.publicUrl,
    basePath: '/api/auth',
    emailAndPassword: { enabled: true },
    trustedOrigins: [settings.publicUrl],
    logger: { level: 'error' },
    plugins: [
      organization(),
      bearer(),
      apiKey({ references: 'organization', defaultPrefix: API_KEY_PREFIX, rateLimit: { enabled: false } }),
    ],
    databaseHooks: {
      session: {
        create: {
          // A member who signs in lands in their first organization rather than in none.
          before: async (session) => {
            if ((session as { activeOrganizationId?: string | null }).activeOrganizationId)
              return { data: session };
            const { rows } = await pool.query<{ organizationId: string }>(
              'SELECT "organizationId" FROM member WHERE "userId" = $1 ORDER BY "createdAt" LIMIT 1',
              [session.userId],
            );
            return { data: { ...session, activeOrganizationId: rows[0]?.organizationId ?? null } };
          },
        },
      },
    },
  } satisfies BetterAuthOptions;
}

export type Auth = ReturnType<typeof createAuth>;

export function createAuthPool(databaseUrl: string, logger: Logger): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    options: `-c search_path=${AUTH_SCHEMA}`,
    max: 10,
  });
  // Postgres ending an idle connection (a restart, a failover) reaches the pool as an 'error' event,
  // which stops the process when nobody listens. The pool opens a new connection on next use.
  pool.on('error', (error) => logger.warn({ err: error }, 'an idle auth database connection was closed'));
  return pool;
}

/** better-auth's CLI needs Node 22, so its migrations run through its programmatic API. */
export async function migrateAuth(settings: AuthSettings, logger: Logger): Promise<void> {
  const pool = createAuthPool(settings.databaseUrl, logger);
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${AUTH_SCHEMA}`);
    await pool.query('SELECT pg_advisory_lock(hashtext($1))', [`migrate:${AUTH_SCHEMA}`]);
    // The options alone: an auth instance would first check the schema, and log the missing tables
    // this is about to create as an error.
    const { runMigrations } = await getMigrations(authOptions(settings, pool));
    await runMigrations();
  } finally {
    await pool.end();
  }
}
