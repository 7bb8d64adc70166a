import { randomBytes, randomUUID } from 'node:crypto';

import { migrate } from '#persistence';
import { scratchDatabase } from '#testing';
import pg from 'pg';

import { CredentialCipher } from '../connections/credential-cipher.js';
import { eventsDataSource } from '../events.data-source.js';
import { EventsInitial1764500000000 } from './1764500000000-events-initial.js';

/** The migration against a real Postgres database of its own, holding connections made before it. */
const database = scratchDatabase('fm_events_spec');
const cipher = CredentialCipher.fromEnvironment(randomBytes(32).toString('base64'));

describe('WebhookSendingSecrets1765100000000', () => {
  let db: pg.Client;

  beforeAll(async () => {
    await database.create();
    await migrate({ ...eventsDataSource(database.url, cipher), migrations: [EventsInitial1764500000000] });
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await database.drop();
  });

  async function insert(integrationId: string, credentials: Record<string, unknown>): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO events.connections (id, organization_id, integration_id, name, credentials)
       VALUES ($1, 'org-1', $2, 'old', $3)`,
      [id, integrationId, cipher.seal(id, credentials)],
    );
    return id;
  }

  async function credentialsOf(id: string): Promise<Record<string, unknown>> {
    const { rows } = await db.query(`SELECT credentials FROM events.connections WHERE id = $1`, [id]);
    return cipher.open(id, rows[0].credentials as Buffer);
  }

  it('gives each webhook connection a sending secret of its own, and changes nothing else', async () => {
    const hooks = [
      await insert('webhook', { secret: 'whsec_aW5ib3VuZA==' }),
      await insert('webhook', { secret: 'whsec_b3RoZXI=' }),
    ];
    const http = await insert('http', { headers: { authorization: 'Bearer t' } });

    // Later migrations run after it too.
    expect(await migrate(eventsDataSource(database.url, cipher))).toContain(
      'WebhookSendingSecrets1765100000000',
    );

    const after = await Promise.all(hooks.map(credentialsOf));
    expect(after.map((credentials) => credentials.secret)).toEqual(['whsec_aW5ib3VuZA==', 'whsec_b3RoZXI=']);
    const sending = after.map((credentials) => credentials.sendingSecret as string);
    expect(sending).toEqual([expect.stringMatching(/^whsec_/), expect.stringMatching(/^whsec_/)]);
    expect(new Set([...sending, 'whsec_aW5ib3VuZA==', 'whsec_b3RoZXI=']).size).toBe(4);
    expect(await credentialsOf(http)).toEqual({ headers: { authorization: 'Bearer t' } });
    expect(await migrate(eventsDataSource(database.url, cipher))).toEqual([]);
  });
});
