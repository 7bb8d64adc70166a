import { seemsToWrite } from './write-hint.util.js';

describe('seemsToWrite', () => {
  it.each([
    'INSERT INTO t VALUES (1)',
    '  update t SET n = 1',
    'CREATE TABLE t AS SELECT 1',
    '-- load\nDELETE FROM t',
    '/* a */ MERGE INTO t USING s ON true WHEN MATCHED THEN DELETE',
  ])('takes %p for a write', (sql) => {
    expect(seemsToWrite([{ sql: 'SELECT 1' }, { sql }])).toBe(true);
  });

  it.each([
    'SELECT 1',
    ' with x AS (SELECT 1) SELECT * FROM x',
    'FROM t',
    '-- why\n/* not */ select 2',
    'PRAGMA table_info(t)',
    'EXPLAIN SELECT 1',
  ])('takes %p for a read', (sql) => {
    expect(seemsToWrite([{ sql }])).toBe(false);
  });
});
