import { loadConfig } from '#common';

import { EventsConfig } from './events.config.js';

describe('EventsConfig', () => {
  it('reads ACTIONS_ALLOW_PRIVATE_NETWORKS as the text says, off by default', () => {
    const allow = (value?: string) =>
      loadConfig(EventsConfig, value === undefined ? {} : { ACTIONS_ALLOW_PRIVATE_NETWORKS: value })
        .ACTIONS_ALLOW_PRIVATE_NETWORKS;
    expect([allow(), allow('false'), allow('true'), allow('1')]).toEqual([false, false, true, true]);
  });
});
