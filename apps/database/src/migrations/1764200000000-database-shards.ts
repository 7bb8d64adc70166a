import type { MigrationInterface, QueryRunner } from 'typeorm';

export class DatabaseShards1764200000000 implements MigrationInterface {
  name = 'DatabaseShards1764200000000';

  async up(runner: QueryRunner): Promise<void> {
    // Every database made before sharding lives on the one replica there was, shard 0. The default
    // is dropped afterwards: a new database is always given its shard explicitly.
    await runner.query(`ALTER TABLE "database".databases ADD COLUMN shard integer NOT NULL DEFAULT 0`);
    await runner.query(`ALTER TABLE "database".databases ALTER COLUMN shard DROP DEFAULT`);
    // Set while the database's file is being copied to another shard; the copy may take the database
    // only while this still names its move (docs/databases.md, "Moving a database").
    await runner.query(`ALTER TABLE "database".databases ADD COLUMN move_id uuid`);
    await runner.query(`CREATE INDEX databases_shard_idx ON "database".databases (shard)`);
    await runner.query(`
      CREATE TABLE "database".shards (
        shard integer PRIMARY KEY CHECK (shard >= 0),
        state text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'leaving')),
        started_at timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query(`DROP TABLE "database".shards`);
    await runner.query(`DROP INDEX "database".databases_shard_idx`);
    await runner.query(`ALTER TABLE "database".databases DROP COLUMN move_id`);
    await runner.query(`ALTER TABLE "database".databases DROP COLUMN shard`);
  }
}
