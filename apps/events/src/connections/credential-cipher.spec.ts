import { randomBytes } from 'node:crypto';

import { CredentialCipher, parseEncryptionKey } from './credential-cipher.js';

describe('CredentialCipher', () => {
  const key = randomBytes(32);
  const cipher = CredentialCipher.fromEnvironment(key.toString('base64'));

  it('opens what it sealed, and the box does not show the credentials', () => {
    const box = cipher.seal('connection-1', { secret: 'whsec_abc', headers: { token: 't0ken' } });
    expect(box.toString('latin1')).not.toMatch(/whsec_abc|t0ken/);
    expect(cipher.open('connection-1', box)).toEqual({ secret: 'whsec_abc', headers: { token: 't0ken' } });
  });

  it('refuses a box moved to another connection, tampered with, or sealed with another key', () => {
    const box = cipher.seal('connection-1', { secret: 'x' });
    expect(() => cipher.open('connection-2', box)).toThrow();
    const tampered = Buffer.from(box);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => cipher.open('connection-1', tampered)).toThrow();
    const other = CredentialCipher.fromEnvironment(randomBytes(32).toString('hex'));
    expect(() => other.open('connection-1', box)).toThrow();
  });

  it('reads hex and base64 keys of 32 bytes, and falls back to the development key when unset', () => {
    expect(parseEncryptionKey(key.toString('hex'))).toEqual(key);
    expect(parseEncryptionKey(key.toString('base64'))).toEqual(key);
    expect(() => parseEncryptionKey('too short')).toThrow(/32 bytes/);
    expect(CredentialCipher.fromEnvironment(undefined).isDevelopmentKey).toBe(true);
    expect(cipher.isDevelopmentKey).toBe(false);
  });
});
