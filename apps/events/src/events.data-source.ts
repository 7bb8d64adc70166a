import type { ServiceDataSourceOptions } from '#persistence';

import type { CredentialCipher } from './connections/credential-cipher.js';
import { EventsInitial1764500000000 } from './migrations/1764500000000-events-initial.js';
import { webhookSendingSecrets } from './migrations/1765100000000-webhook-sending-secrets.js';
import { AuditEntries1765300000000 } from './migrations/1765300000000-audit-entries.js';
import { RunNotifications1765420000000 } from './migrations/1765420000000-run-notifications.js';
import { McpToolLists1765800000000 } from './migrations/1765800000000-mcp-tool-lists.js';

/** `cipher` opens and seals credentials for the migrations that change them. */
export function eventsDataSource(
  url: string,
  cipher: CredentialCipher,
  poolSize?: number,
): ServiceDataSourceOptions {
  return {
    url,
    schema: 'events',
    entities: [],
    migrations: [
      EventsInitial1764500000000,
      webhookSendingSecrets(cipher),
      AuditEntries1765300000000,
      RunNotifications1765420000000,
      McpToolLists1765800000000,
    ],
    ...(poolSize === undefined ? {} : { poolSize }),
  };
}
