import './activity-chart.css';

import type { Schemas } from '../api/client';

/** Seven bars, one per UTC day; the numbers are also in the accessible table it describes. */
export function ActivityChart({ days }: { days: Schemas['DashboardDto']['activity'] }) {
  const max = Math.max(1, ...days.map((day) => day.runs));
  const width = 560;
  const height = 160;
  const bar = width / days.length;
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${width} ${height + 24}`} role="img" aria-label="Runs per day, last seven days">
        {days.map((day, index) => {
          const h = Math.round((day.runs / max) * (height - 20));
          return (
            <g key={day.date}>
              <rect x={index * bar + 8} y={height - h} width={bar - 16} height={h} rx={3} className="bar" />
              <text x={index * bar + bar / 2} y={height - h - 4} textAnchor="middle" className="bar-value">
                {day.runs}
              </text>
              <text x={index * bar + bar / 2} y={height + 16} textAnchor="middle" className="bar-label">
                {day.date.slice(5)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption className="visually-hidden">
        {days.map((day) => `${day.date}: ${day.runs} runs`).join(', ')}
      </figcaption>
    </figure>
  );
}
