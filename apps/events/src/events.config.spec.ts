import { randomBytes } from 'node:crypto';

import { loadConfig } from '#common';

import { EventsConfig } from './events.config.js';

describe('EventsConfig', () => {
  it('reads ACTIONS_ALLOW_PRIVATE_NETWORKS as the text says, off by default', () => {
    const allow = (value?: string) =>
      loadConfig(EventsConfig, value === undefined ? {} : { ACTIONS_ALLOW_PRIVATE_NETWORKS: value })
        .ACTIONS_ALLOW_PRIVATE_NETWORKS;
    expect([allow(), allow('false'), allow('true'), allow('1')]).toEqual([false, false, true, true]);
  });

  it('refuses in production a connections key that is missing, empty or a known phrase', () => {
    const keyProblem = (key?: string) =>
      loadConfig(EventsConfig, {
        NATS_EVENTS_PASSWORD: 'anEventsPassword1234',
        ...(key === undefined ? {} : { CONNECTIONS_ENCRYPTION_KEY: key }),
      }).productionProblems();
    const phrase = Buffer.from('flowmesh-development-key-32bytes');
    for (const key of [undefined, '', '  ', phrase.toString('hex'), phrase.toString('base64')]) {
      expect(keyProblem(key)).toEqual([expect.stringContaining('set CONNECTIONS_ENCRYPTION_KEY')]);
    }
    expect(keyProblem(randomBytes(32).toString('base64'))).toEqual([]);
    expect(keyProblem(randomBytes(32).toString('hex'))).toEqual([]);
  });
});
