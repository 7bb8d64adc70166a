import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A scheduler claims a due row by setting `claimed_until` in a short transaction, and only then sends
 * its run to the runner; the row keeps its due time until the send is settled. A claim that outlives
 * its lease (the replica died) is taken over and the due time sent again with the same idempotency key.
 */
export class ScheduleClaims1764500000000 implements MigrationInterface {
  name = 'ScheduleClaims1764500000000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE workflow.schedules ADD COLUMN claimed_until timestamptz`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE workflow.schedules DROP COLUMN claimed_until`);
  }
}
