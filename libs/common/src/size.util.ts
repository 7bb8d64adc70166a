const UNITS: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  tib: 2 ** 40,
};

/** A size as DuckDB writes it (`512MB`, `2GiB`): decimal units are powers of 1000, binary of 1024. */
export const SIZE_PATTERN = /^(\d+(?:\.\d+)?)\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i;

/** Bytes in a size that matches SIZE_PATTERN; NaN for anything else. */
export function bytesOf(size: string): number {
  const match = SIZE_PATTERN.exec(size.trim());
  if (!match?.[1] || !match[2]) return Number.NaN;
  return Math.floor(Number(match[1]) * (UNITS[match[2].toLowerCase()] ?? Number.NaN));
}
