import { randomBytes } from 'node:crypto';

import {
  type CatalogEntry,
  JETSTREAM_CATALOG,
  type JetStreamEntry,
  NATS_IDENTITIES,
  type NatsIdentity,
  streamNameFor,
  SUBJECT_CATALOG,
} from '#contracts';

/** What one NATS user may do. Everything not listed is denied by the server. */
export interface IdentityPermissions {
  publish: string[];
  subscribe: string[];
  /** May answer requests it received (the server then allows one reply to each request's inbox). */
  allowResponses: boolean;
}

/**
 * The inbox prefix of an identity's requests. Per identity rather than the shared `_INBOX`, so an
 * identity can read only its own replies, and a service that answers in several parts may write to
 * its callers' inboxes and no one else's.
 */
export const inboxPrefixOf = (identity: NatsIdentity): string => `_INBOX.${identity}`;

/** The environment variable holding an identity's NATS password, the same for the server and the app. */
export const passwordVariableOf = (identity: NatsIdentity): string =>
  `NATS_${identity.toUpperCase()}_PASSWORD`;

/**
 * nats-server reads a `$VARIABLE` from its environment as a configuration value, not as raw text: a
 * value starting with a digit is taken for a number, `-` and `.` end a token. Passwords are therefore
 * letters and digits, starting with a letter.
 */
export const NATS_PASSWORD_PATTERN = /^[A-Za-z][A-Za-z0-9]{15,127}$/;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A password of 32 characters (about 190 bits) that nats-server reads back unchanged. */
export function generateNatsPassword(): string {
  let password = '';
  while (password.length < 32) {
    for (const byte of randomBytes(64)) {
      // Bytes past the last whole multiple of the alphabet would favour its first characters.
      if (byte >= 248) continue;
      const character = ALPHABET[byte % ALPHABET.length] ?? '';
      if (password === '' && !/[A-Za-z]/.test(character)) continue;
      password += character;
      if (password.length === 32) break;
    }
  }
  return password;
}

interface Catalog {
  subjects: readonly CatalogEntry[];
  streams: readonly JetStreamEntry[];
}

/**
 * Derives every identity's permissions from the subject catalog, for a deployment whose subjects
 * carry `prefix` (NATS_SUBJECT_PREFIX). The catalog is the one source: a subject or a caller added
 * there is allowed here, and nothing else is.
 */
export function permissionsFor(
  prefix: string,
  catalog: Catalog = { subjects: SUBJECT_CATALOG, streams: JETSTREAM_CATALOG },
): Record<NatsIdentity, IdentityPermissions> {
  const name = (bare: string) => `${prefix}${bare}`;
  const permissions = Object.fromEntries(
    NATS_IDENTITIES.map((identity) => [
      identity,
      {
        publish: new Set<string>(),
        subscribe: new Set<string>([`${inboxPrefixOf(identity)}.>`]),
        allowResponses: false,
      },
    ]),
  ) as Record<NatsIdentity, { publish: Set<string>; subscribe: Set<string>; allowResponses: boolean }>;

  for (const entry of catalog.subjects) {
    switch (entry.kind) {
      case 'rpc':
        permissions[entry.server].subscribe.add(name(entry.bare));
        permissions[entry.server].allowResponses = true;
        for (const caller of entry.callers) {
          permissions[caller].publish.add(name(entry.bare));
          // "Still working" messages go before the answer, more than one reply to a request allows.
          if (entry.working) permissions[entry.server].publish.add(`${inboxPrefixOf(caller)}.>`);
        }
        break;
      case 'stream-protocol':
      case 'streamed-rpc':
        permissions[entry.server].subscribe.add(name(entry.bare)).add(name(`${entry.bare}.>`));
        permissions[entry.server].allowResponses = true;
        for (const caller of entry.callers) {
          permissions[caller].publish.add(name(entry.bare)).add(name(`${entry.bare}.>`));
          // The answer comes in several messages, more than one reply to a request allows.
          permissions[entry.server].publish.add(`${inboxPrefixOf(caller)}.>`);
        }
        break;
      case 'event': {
        // A keyed family is one token deeper (`….run-changed.<runId>`): `*` covers exactly that.
        const subject = name(entry.keyed ? `${entry.bare}.*` : entry.bare);
        permissions[entry.publisher].publish.add(subject);
        for (const listener of entry.listeners) permissions[listener].subscribe.add(subject);
        break;
      }
      default: {
        const unknown: never = entry;
        throw new Error(`unknown catalog entry ${JSON.stringify(unknown)}`);
      }
    }
  }

  for (const stream of catalog.streams) {
    const streamName = streamNameFor(stream.bareStream, prefix);
    const consumer = stream.consumer;
    const owner = permissions[stream.owner].publish;
    owner.add('$JS.API.INFO');
    owner.add(`$JS.API.STREAM.INFO.${streamName}`);
    owner.add(`$JS.API.STREAM.CREATE.${streamName}`);
    owner.add(`$JS.API.STREAM.UPDATE.${streamName}`);
    owner.add(`$JS.API.CONSUMER.INFO.${streamName}.${consumer}`);
    owner.add(`$JS.API.CONSUMER.CREATE.${streamName}.${consumer}`);
    owner.add(`$JS.API.CONSUMER.CREATE.${streamName}.${consumer}.>`);
    owner.add(`$JS.API.CONSUMER.DURABLE.CREATE.${streamName}.${consumer}`);
    owner.add(`$JS.API.CONSUMER.MSG.NEXT.${streamName}.${consumer}`);
    owner.add(`$JS.ACK.${streamName}.${consumer}.>`);
    for (const publisher of new Set([stream.owner, ...stream.publishers])) {
      permissions[publisher].publish.add(name(stream.bareSubject));
    }
  }

  return Object.fromEntries(
    NATS_IDENTITIES.map((identity) => {
      const { publish, subscribe, allowResponses } = permissions[identity];
      return [identity, { publish: [...publish].sort(), subscribe: [...subscribe].sort(), allowResponses }];
    }),
  ) as Record<NatsIdentity, IdentityPermissions>;
}

const quote = (subject: string) => JSON.stringify(subject);

/**
 * The `authorization` block of a nats-server configuration: one user per identity, its password read
 * from the server's environment (`$NATS_<IDENTITY>_PASSWORD`), so the file holds no secret and the
 * same text serves development, tests and Kubernetes.
 */
export function renderAuthorization(prefix: string): string {
  const permissions = permissionsFor(prefix);
  const users = NATS_IDENTITIES.map((identity) => {
    const { publish, subscribe, allowResponses } = permissions[identity];
    return [
      `    {`,
      `      user: ${identity}`,
      `      password: $${passwordVariableOf(identity)}`,
      `      permissions: {`,
      `        publish: { allow: [${publish.map(quote).join(', ')}] }`,
      `        subscribe: { allow: [${subscribe.map(quote).join(', ')}] }`,
      ...(allowResponses ? [`        allow_responses: true`] : []),
      `      }`,
      `    }`,
    ].join('\n');
  });
  return [
    '# Rendered from the subject catalog in libs/contracts (npm run nats -- authorization): do not edit.',
    `# Subject prefix: ${prefix === '' ? '(none)' : prefix}`,
    'authorization {',
    '  users: [',
    users.join('\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}
