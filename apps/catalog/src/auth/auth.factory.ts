import { apiKey } from '@better-auth/api-key';
import { betterAuth, type BetterAuthOptions } from 'better-auth';
import { APIError } from 'better-auth/api';
import { getMigrations } from 'better-auth/db/migration';
import { bearer, organization } from 'better-auth/plugins';
import pg from 'pg';
import type { Logger } from 'pino';

import type { CatalogConfig } from '../catalog.config.js';
import { authDatabase } from './auth.database.js';
import { AuthRepository } from './auth.repository.js';
import type { InvitationMailer } from './invitation-mailer.js';
import { invitationLink } from './invitation-token.util.js';
import { invitationAccess } from './invitations.plugin.js';
import { invitationsMakeAccounts, type SignupMode } from './signup-mode.js';

export const AUTH_SCHEMA = 'auth';
export const API_KEY_PREFIX = 'fm_';

/** A week: long enough for a team to get to its email, short enough that old links die. */
const INVITATION_EXPIRES_IN_SECONDS = 7 * 24 * 3600;

export interface AuthSettings {
  databaseUrl: string;
  secret: string;
  publicUrl: string;
  signup: SignupMode;
}

export function authSettings(config: CatalogConfig): AuthSettings {
  return {
    databaseUrl: config.DATABASE_URL,
    secret: config.AUTH_SECRET,
    publicUrl: config.PUBLIC_URL,
    signup: config.SIGNUP,
  };
}

/**
 * better-auth owns members, sessions, organizations and organization keys, in the `auth` schema of
 * catalog's database. Its own per-key rate limit is off: the gateway limits every credential alike.
 */
export function createAuth(settings: AuthSettings, pool: pg.Pool, mailer: InvitationMailer) {
  return betterAuth(authOptions(settings, pool, mailer));
}

function authOptions(settings: AuthSettings, pool: pg.Pool, mailer?: InvitationMailer) {
  const accounts = new AuthRepository(authDatabase(pool));
  return {
    database: pool,
    secret: settings.secret,
    baseURL: settings.publicUrl,
    basePath: '/api/auth',
    // The admin CLI makes accounts through catalog's own code (createPasswordUser), not this endpoint.
    emailAndPassword: { enabled: true, disableSignUp: settings.signup !== 'open' },
    trustedOrigins: [settings.publicUrl],
    logger: { level: 'error' },
    plugins: [
      organization({
        // Organizations are made by operators (the admin CLI's server-side call is allowed regardless),
        // and not deleted over HTTP: their workflows, databases and keys live on in other services.
        allowUserToCreateOrganization: false,
        disableOrganizationDeletion: true,
        // Members list invitations, ids included: accepting one needs an address proven by its link.
        requireEmailVerificationOnInvitation: true,
        invitationExpiresIn: INVITATION_EXPIRES_IN_SECONDS,
        sendInvitationEmail: async ({ id, email, role, organization: invitedTo, inviter, invitation }) => {
          if (!mailer) throw new Error('no mailer: auth options made for migrations only');
          await mailer.send({
            email,
            role,
            organizationName: invitedTo.name,
            inviterEmail: inviter.user.email,
            link: invitationLink(settings.publicUrl, settings.secret, id),
            expiresAt: new Date(invitation.expiresAt),
          });
        },
        organizationHooks: {
          beforeCreateInvitation: async ({ invitation }) => {
            if (invitationsMakeAccounts(settings.signup)) return;
            // Told now, rather than the invitee finding a link that cannot make the account.
            if ((await accounts.userIdByEmail(invitation.email)) === null)
              throw new APIError('BAD_REQUEST', {
                code: 'INVITEE_HAS_NO_ACCOUNT',
                message: `${invitation.email} has no account, and only the operator makes accounts here (SIGNUP=closed).`,
              });
          },
        },
      }),
      bearer(),
      apiKey({ references: 'organization', defaultPrefix: API_KEY_PREFIX, rateLimit: { enabled: false } }),
      invitationAccess({
        signup: settings.signup,
        secret: settings.secret,
        publicUrl: settings.publicUrl,
        emailed: mailer?.emails ?? false,
      }),
    ],
    databaseHooks: {
      session: {
        create: {
          // A member who signs in lands in their first organization rather than in none.
          before: async (session) => {
            if ((session as { activeOrganizationId?: string | null }).activeOrganizationId)
              return { data: session };
            const activeOrganizationId = await accounts.firstOrganizationOf(session.userId);
            return { data: { ...session, activeOrganizationId } };
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
  // The same event from a connection checked out for a query reaches only the client: better-auth's
  // own Kysely adds no listener to it, and an unheard 'error' ends the process (see kyselyOnPool).
  pool.on('connect', (client) => client.on('error', () => undefined));
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
