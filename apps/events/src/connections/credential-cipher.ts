import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key used when CONNECTIONS_ENCRYPTION_KEY is unset: public, so only for development. */
const DEVELOPMENT_KEY = createHash('sha256').update('flowmesh development connections key').digest();

/** Reads `CONNECTIONS_ENCRYPTION_KEY`: 32 bytes as 64 hex digits or as base64. */
export function parseEncryptionKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) {
    throw new Error('CONNECTIONS_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64');
  }
  return key;
}

/**
 * Seals connection credentials with AES-256-GCM. Each box is `version | iv | tag | ciphertext`, and
 * its connection id is authenticated with it, so a box copied onto another row does not open.
 */
export class CredentialCipher {
  private constructor(
    private readonly key: Buffer,
    readonly isDevelopmentKey: boolean,
  ) {}

  static fromEnvironment(value: string | undefined): CredentialCipher {
    return value === undefined || value === ''
      ? new CredentialCipher(DEVELOPMENT_KEY, true)
      : new CredentialCipher(parseEncryptionKey(value), false);
  }

  seal(connectionId: string, credentials: Record<string, unknown>): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(connectionId));
    const ciphertext = Buffer.concat([cipher.update(JSON.stringify(credentials), 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]);
  }

  open(connectionId: string, box: Buffer): Record<string, unknown> {
    if (box[0] !== VERSION) throw new Error('unknown credentials format');
    const iv = box.subarray(1, 1 + IV_BYTES);
    const tag = box.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
    decipher.setAAD(Buffer.from(connectionId));
    decipher.setAuthTag(tag);
    const plain = Buffer.concat([decipher.update(box.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    return JSON.parse(plain.toString('utf8')) as Record<string, unknown>;
  }
}
