import { randomBytes } from 'node:crypto';

/** A Standard Webhooks secret: `whsec_` and 32 random bytes as base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
