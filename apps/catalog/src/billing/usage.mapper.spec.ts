import { runsOnDays } from './usage.mapper.js';

describe('runsOnDays', () => {
  it('answers every day asked, in order, a day without a row as 0', () => {
    expect(
      runsOnDays(
        ['2026-11-21', '2026-11-22', '2026-11-23'],
        [
          { day: '2026-11-23', runs: 4 },
          { day: '2026-11-21', runs: 1 },
        ],
      ),
    ).toEqual([
      { date: '2026-11-21', runs: 1 },
      { date: '2026-11-22', runs: 0 },
      { date: '2026-11-23', runs: 4 },
    ]);
  });
});
