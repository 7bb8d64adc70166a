import { textRefusal } from './statement-policy.js';

describe('textRefusal', () => {
  it.each([
    "CALL enable_logging(storage='file', storage_path='/tmp/x')",
    'SELECT * FROM "system"."main"."ENABLE_LOGGING"()',
    'FROM Enable_Profiling()',
    'CALL enable_peg_parser()',
    "SELECT * FROM json_execute_serialized_sql(json_serialize_sql('SELECT 1'))",
    "SELECT * FROM query('SELECT 1')",
    'SELECT * FROM QUERY (?)',
    'SELECT * FROM main.query(?)',
    'SELECT * FROM "query"(?)',
    'SELECT * FROM query -- why not\n (?)',
    'SELECT * FROM query/* one /* nested */ comment */(?)',
    "CREATE MACRO m() AS TABLE SELECT * FROM query('SELECT 1')",
    // They show the data directory's paths, which name the organization.
    "SELECT current_setting('temp_directory')",
    'SELECT name, value FROM duckdb_settings()',
    'SELECT path FROM duckdb_databases()',
    'PRAGMA database_list',
    'SELECT * FROM pragma_database_list()',
    'SELECT * FROM duckdb_extensions()',
    'PRAGMA extension_versions',
    'SELECT path FROM duckdb_temporary_files()',
  ])('refuses %p', (sql) => {
    expect(textRefusal(sql)).toMatch(/^Permission Error: /);
  });

  it.each([
    'SELECT query FROM searches',
    'INSERT INTO searches (query, queries) VALUES (?, ?)',
    'SELECT search_query(x) FROM t',
    'SELECT count(*) AS query FROM t',
    'SELECT * FROM queries WHERE query = ? ORDER BY query',
  ])('lets %p run', (sql) => {
    expect(textRefusal(sql)).toBeNull();
  });
});
