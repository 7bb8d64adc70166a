/** Runs counted on one UTC calendar day (`YYYY-MM-DD`). */
export interface DayRuns {
  date: string;
  runs: number;
}

/** Each of `days` with the runs counted on it, a day without a row as 0. */
export function runsOnDays(
  days: readonly string[],
  rows: ReadonlyArray<{ day: string; runs: number }>,
): DayRuns[] {
  const counted = new Map(rows.map((row) => [row.day, row.runs]));
  return days.map((date) => ({ date, runs: counted.get(date) ?? 0 }));
}
