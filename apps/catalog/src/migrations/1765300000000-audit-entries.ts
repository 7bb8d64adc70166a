import { auditEntriesMigration } from '#persistence';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The service's audit log (docs/audit.md): append-only, written in the transaction of each change. */
export class AuditEntries1765300000000 implements MigrationInterface {
  name = 'AuditEntries1765300000000';

  async up(runner: QueryRunner): Promise<void> {
    for (const statement of auditEntriesMigration('catalog').up) await runner.query(statement);
  }

  async down(runner: QueryRunner): Promise<void> {
    for (const statement of auditEntriesMigration('catalog').down) await runner.query(statement);
  }
}
