import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DatabaseStorage1764600000000 implements MigrationInterface {
  name = 'DatabaseStorage1764600000000';

  async up(runner: QueryRunner): Promise<void> {
    // What the database held when its shard last measured it (after a writing batch, on opening and
    // closing it): the organization's storage limit adds these up across shards. Databases made
    // before read 0 until their shard next opens them.
    await runner.query(
      `ALTER TABLE "database".databases ADD COLUMN storage_bytes bigint NOT NULL DEFAULT 0 CHECK (storage_bytes >= 0)`,
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`ALTER TABLE "database".databases DROP COLUMN storage_bytes`);
  }
}
