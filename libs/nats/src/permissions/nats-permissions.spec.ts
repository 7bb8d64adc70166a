import { readFileSync } from 'node:fs';

import { JETSTREAM_CATALOG, NATS_IDENTITIES, SUBJECT_CATALOG } from '#contracts';

import {
  generateNatsPassword,
  NATS_PASSWORD_PATTERN,
  permissionsFor,
  renderAuthorization,
} from './nats-permissions.js';

const deployed = new URL('../../../../deploy/base/nats/authorization.conf', import.meta.url);

describe('NATS permissions rendered from the subject catalog', () => {
  const permissions = permissionsFor('');

  it('is what deploy/ runs: regenerate with `npm run --silent nats -- authorization > deploy/base/nats/authorization.conf`', () => {
    expect(readFileSync(deployed, 'utf8')).toBe(renderAuthorization(''));
  });

  it('lets the gateway publish only to the subjects that name it as a caller', () => {
    const routed = SUBJECT_CATALOG.filter(
      (entry) => entry.kind !== 'event' && entry.callers.includes('gateway'),
    ).map((entry) => entry.bare);
    const { publish, subscribe, allowResponses } = permissions.gateway;
    expect(publish.filter((subject) => !subject.endsWith('.>')).sort()).toEqual([...routed].sort());
    expect(publish.some((subject) => subject.startsWith('catalog.admin.'))).toBe(false);
    expect(subscribe).toEqual([
      '_INBOX.gateway.>',
      'catalog.auth.invalidated',
      'runner.events.run-changed.*',
    ]);
    expect(allowResponses).toBe(false);
  });

  it('keeps catalog.admin.* to the admin identity', () => {
    for (const identity of NATS_IDENTITIES) {
      const admin = permissions[identity].publish.filter((subject) => subject.startsWith('catalog.admin.'));
      expect({ identity, admin: admin.length > 0 }).toEqual({ identity, admin: identity === 'admin' });
    }
    expect(permissions.admin.subscribe).toEqual(['_INBOX.admin.>']);
  });

  it('lets each service subscribe to its own subjects and its own inbox only', () => {
    for (const identity of ['catalog', 'workflow', 'runner', 'database'] as const) {
      const listened = new Set(
        SUBJECT_CATALOG.filter((entry) => entry.kind === 'event' && entry.listeners.includes(identity)).map(
          // A keyed event is listened to one token deeper: `….run-cancelled.*`.
          (entry) => (entry.kind === 'event' && entry.keyed ? `${entry.bare}.*` : entry.bare),
        ),
      );
      for (const subject of permissions[identity].subscribe) {
        const own =
          subject.startsWith(`${identity}.`) || subject === `_INBOX.${identity}.>` || listened.has(subject);
        expect({ identity, subject, own }).toEqual({ identity, subject, own: true });
      }
    }
  });

  it('lets a service that answers in many messages write to its callers’ inboxes, and them to its subjects', () => {
    // The agent's chat stream: chunks to the gateway's reply subject; the gateway's heartbeats and
    // cancel to a subject under the one it requested.
    expect(permissions.agent.publish).toContain('_INBOX.gateway.>');
    expect(permissions.agent.subscribe).toEqual(
      expect.arrayContaining(['agent.chat.stream', 'agent.chat.stream.>']),
    );
    expect(permissions.gateway.publish).toEqual(
      expect.arrayContaining(['agent.chat.stream', 'agent.chat.stream.>']),
    );
    // And the runner's, whose agent steps it says it is still working on (a `working` subject).
    expect(permissions.agent.publish.filter((subject) => subject.startsWith('_INBOX.'))).toEqual([
      '_INBOX.gateway.>',
      '_INBOX.runner.>',
    ]);
    // A plain request/reply server answers once, which needs no inbox grant.
    expect(permissions.catalog.publish.filter((subject) => subject.startsWith('_INBOX.'))).toEqual([]);
  });

  it('grants JetStream only on the streams an identity owns or publishes to', () => {
    for (const identity of NATS_IDENTITIES) {
      const owned = JETSTREAM_CATALOG.filter((stream) => stream.owner === identity).map(
        (stream) => stream.bareStream,
      );
      for (const subject of permissions[identity].publish.filter((subject) => subject.startsWith('$JS.'))) {
        const onOwnStream =
          subject === '$JS.API.INFO' || owned.some((stream) => subject.includes(`.${stream}`));
        expect({ identity, subject, onOwnStream }).toEqual({ identity, subject, onOwnStream: true });
      }
      // Nobody may delete or purge a stream, or reach a consumer that is not its own.
      expect(
        permissions[identity].publish.filter((subject) => /STREAM\.(DELETE|PURGE)/.test(subject)),
      ).toEqual([]);
    }
  });

  it('never grants a bare wildcard', () => {
    for (const identity of NATS_IDENTITIES) {
      for (const subject of [...permissions[identity].publish, ...permissions[identity].subscribe]) {
        expect(subject).not.toMatch(/^(>|\*|_INBOX\.>|\$JS\.>|\$JS\.API\.>)$/);
      }
    }
  });

  it('renders subjects with the deployment prefix', () => {
    expect(permissionsFor('t_1.').gateway.publish).toContain('t_1.catalog.projects.get');
    expect(permissionsFor('t_1.').runner.publish).toContain('$JS.API.STREAM.INFO.t_1_RUNS');
  });
});

describe('generated NATS passwords', () => {
  it('are letters and digits starting with a letter, so nats-server reads them back unchanged', () => {
    const passwords = Array.from({ length: 200 }, generateNatsPassword);
    for (const password of passwords) expect(password).toMatch(NATS_PASSWORD_PATTERN);
    expect(new Set(passwords).size).toBe(passwords.length);
  });
});
