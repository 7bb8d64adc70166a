import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An idempotency key names one request: the run it created records a fingerprint of that request
 * (`requestFingerprint`), and the same key sent with another workflow or another body is refused.
 * Runs recorded before this column hold null, and their keys replay for any body of the same
 * workflow, as they did, for the rest of their 24 hours.
 */
export class IdempotencyFingerprint1764300000000 implements MigrationInterface {
  name = 'IdempotencyFingerprint1764300000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE runner.runs ADD COLUMN idempotency_fingerprint text`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE runner.runs DROP COLUMN idempotency_fingerprint`);
  }
}
