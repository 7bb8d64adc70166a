import { looksLikePlaceholder, refuseUnsafeProduction } from './production.util.js';

describe('refuseUnsafeProduction', () => {
  const unsafe = { productionProblems: () => ['set AUTH_SECRET', 'set NATS_CATALOG_PASSWORD'] };

  it('lists every problem at once in production', () => {
    expect(() => refuseUnsafeProduction('catalog', unsafe, { NODE_ENV: 'production' })).toThrow(
      /catalog will not start[^]*- set AUTH_SECRET\n {2}- set NATS_CATALOG_PASSWORD/,
    );
  });

  it('lets development and tests run with development settings, and production with its own', () => {
    expect(() => refuseUnsafeProduction('catalog', unsafe, { NODE_ENV: 'development' })).not.toThrow();
    expect(() => refuseUnsafeProduction('catalog', unsafe, {})).not.toThrow();
    const safe = { productionProblems: () => [] };
    expect(() => refuseUnsafeProduction('catalog', safe, { NODE_ENV: 'production' })).not.toThrow();
  });
});

describe('looksLikePlaceholder', () => {
  it.each([
    'change-me-to-at-least-32-random-characters',
    'CHANGEME0000000000000000000000000000',
    'replace_me_with_a_real_secret_please_now',
    'flowmesh-development-key-32bytes',
    'x'.repeat(40),
  ])('knows %s for a placeholder', (value) => expect(looksLikePlaceholder(value)).toBe(true));

  it('takes random values for what they are', () => {
    expect(looksLikePlaceholder('mF3q9Zk1vT0pW8yQ2rL6sN4uH7cJ5dB0aE1gI3oK')).toBe(false);
  });
});
