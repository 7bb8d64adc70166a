import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

import { cellConverterFor, chunkRowSlices } from './cell.util.js';

describe('cells', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;

  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    connection = await instance.connect();
    await connection.run(`SET TimeZone = 'UTC'`);
  });

  afterAll(() => {
    connection.closeSync();
    instance.closeSync();
  });

  async function cellsOf(sql: string): Promise<{ columns: string[]; rows: unknown[] }> {
    const result = await connection.run(sql);
    const converters = result.columnTypes().map(cellConverterFor);
    const parts: string[] = [];
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      parts.push(...chunkRowSlices(chunk, converters));
    }
    return { columns: result.columnNames(), rows: JSON.parse(`[${parts.join(',')}]`) as unknown[] };
  }

  it('renders numbers, keeping every digit of 64-bit and wider integers and of decimals', async () => {
    const { rows } = await cellsOf(`SELECT 1::TINYINT, 70000::INTEGER, 4000000000::UINTEGER,
      9007199254740993::BIGINT, 18446744073709551615::UBIGINT,
      -170141183460469231731687303715884105727::HUGEINT, 12.50::DECIMAL(10,2),
      123456789012345678901234567.891::DECIMAL(38,3), 1.5::FLOAT, 0.1::DOUBLE,
      'nan'::DOUBLE, 'inf'::DOUBLE, '-inf'::DOUBLE`);
    expect(rows).toEqual([
      [
        1,
        70000,
        4000000000,
        '9007199254740993',
        '18446744073709551615',
        '-170141183460469231731687303715884105727',
        '12.50',
        '123456789012345678901234567.891',
        1.5,
        0.1,
        'nan',
        'inf',
        '-inf',
      ],
    ]);
  });

  it('renders text, booleans, nulls and BLOBs', async () => {
    const { rows } = await cellsOf(
      `SELECT 'héllo ✓', true, NULL::INTEGER, NULL, '\\xAA\\x00\\xFF'::BLOB, ''::BLOB, 'a'::ENUM('a', 'b')`,
    );
    expect(rows).toEqual([['héllo ✓', true, null, null, { blob: 'qgD/' }, { blob: '' }, 'a']]);
  });

  it("renders dates and times as DuckDB's own text, TIMESTAMPTZ in UTC", async () => {
    const { rows } = await cellsOf(`SELECT DATE '2024-02-29', DATE '-0044-03-15', 'infinity'::DATE,
      '-infinity'::DATE, TIME '12:34:56.123456', TIMESTAMP '2024-02-29 12:34:56.123456',
      TIMESTAMPTZ '2024-02-29 12:34:56.5+02', TIMESTAMP_NS '2024-02-29 12:34:56.123456789',
      TIMESTAMP_MS '2024-02-29 12:34:56.123', TIMESTAMP_S '2024-02-29 12:34:56', 'infinity'::TIMESTAMP,
      INTERVAL '1 month 2 days 3.5 seconds', TIMETZ '12:00:00+05:30',
      UUID '0190a8f0-0000-7000-8000-000000000000', '101'::BIT`);
    expect(rows).toEqual([
      [
        '2024-02-29',
        '0045-03-15 (BC)',
        'infinity',
        '-infinity',
        '12:34:56.123456',
        '2024-02-29 12:34:56.123456',
        '2024-02-29 10:34:56.5+00',
        '2024-02-29 12:34:56.123456789',
        '2024-02-29 12:34:56.123',
        '2024-02-29 12:34:56',
        'infinity',
        '1 month 2 days 00:00:03.5',
        '12:00:00+05:30',
        '0190a8f0-0000-7000-8000-000000000000',
        '101',
      ],
    ]);
  });

  it('renders nested values as JSON text with exact numbers', async () => {
    const { rows } = await cellsOf(`SELECT [1, 2, NULL], [9007199254740993]::BIGINT[],
      {'k': 1.50::DECIMAL(4,2), 'blob': '\\x01'::BLOB, 'when': DATE '2024-01-02'},
      MAP {'a': 1, 'b': 2}, MAP {1: 'x'}, union_value(num := 2), array_value('a', 'b'), [[]]::INTEGER[][]`);
    expect(rows).toEqual([
      [
        '[1,2,null]',
        '[9007199254740993]',
        '{"k":1.50,"blob":{"blob":"AQ=="},"when":"2024-01-02"}',
        '{"a":1,"b":2}',
        '{"1":"x"}',
        '2',
        '["a","b"]',
        '[[]]',
      ],
    ]);
  });

  it('keeps duplicate column names and rows of every chunk in order', async () => {
    const { columns, rows } = await cellsOf(`SELECT range AS x, range * 2 AS x FROM range(5000)`);
    expect(columns).toEqual(['x', 'x']);
    expect(rows).toHaveLength(5000);
    expect(rows[0]).toEqual(['0', '0']);
    expect(rows[4999]).toEqual(['4999', '9998']);
  });
});
