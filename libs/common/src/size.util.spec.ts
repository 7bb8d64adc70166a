import { bytesOf } from './size.util.js';

describe('bytesOf', () => {
  it('reads decimal and binary units as DuckDB does', () => {
    expect(bytesOf('512MB')).toBe(512_000_000);
    expect(bytesOf('2GiB')).toBe(2 * 1024 ** 3);
    expect(bytesOf('1.5 kib')).toBe(1536);
    expect(bytesOf('100B')).toBe(100);
  });

  it('answers NaN for what is not a size', () => {
    expect(bytesOf('512')).toBeNaN();
    expect(bytesOf('lots')).toBeNaN();
    expect(bytesOf('-1GB')).toBeNaN();
  });
});
