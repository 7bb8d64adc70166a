import type { MigrationInterface, QueryRunner } from 'typeorm';

import type { CredentialCipher } from '../connections/credential-cipher.js';
import { newWebhookSecret } from '../integrations/webhook-secret.js';

/**
 * Gives every webhook connection made before `webhook__send` had a secret of its own a new sending
 * secret, so that from now on nothing is signed with the secret `/hooks/{id}` verifies. Nobody has
 * seen these: receivers that verify get it from a rotation (docs/events.md). Credentials are sealed,
 * so the migration is made with the events app's cipher.
 */
export function webhookSendingSecrets(cipher: CredentialCipher) {
  return class WebhookSendingSecrets1765100000000 implements MigrationInterface {
    name = 'WebhookSendingSecrets1765100000000';

    async up(runner: QueryRunner): Promise<void> {
      const rows: Array<{ id: string; credentials: Buffer }> = await runner.query(
        `SELECT id, credentials FROM "events".connections WHERE integration_id = 'webhook' FOR UPDATE`,
      );
      for (const row of rows) {
        const credentials = cipher.open(row.id, row.credentials);
        if (typeof credentials.sendingSecret === 'string') continue;
        await runner.query(`UPDATE "events".connections SET credentials = $2 WHERE id = $1`, [
          row.id,
          cipher.seal(row.id, { ...credentials, sendingSecret: newWebhookSecret() }),
        ]);
      }
    }

    async down(): Promise<void> {
      // The code before this migration never reads a sending secret: leaving them is harmless.
    }
  };
}
