import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';

import { api, type Schemas, unwrap } from '../../api/client';
import { formatTime, PageHeader, QueryView } from '../../components/ui';

export const Route = createFileRoute('/_signed-in/billing')({ component: BillingPage });

const LABELS: Record<string, string> = {
  projects: 'Projects',
  databases: 'Databases',
  agents: 'Agents',
  subscriptions: 'Active app subscriptions',
  runs: 'Runs this month',
  runsPerMonth: 'Runs this month',
  storage: 'Database storage',
  databaseStorage: 'Largest database',
};

/** Limits counted in bytes. */
const BYTES = new Set(['storage', 'databaseStorage']);

function amount(resource: string, value: number): string {
  if (!BYTES.has(resource)) return value.toLocaleString();
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = value;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? scaled : scaled.toFixed(1)} ${units[unit]}`;
}

function BillingPage() {
  const query = useQuery({ queryKey: ['billing'], queryFn: () => unwrap(api.GET('/api/v1/billing')) });
  return (
    <>
      <PageHeader title="Billing" />
      <QueryView query={query}>
        {(billing) => {
          const usage = (billing.usage ?? {}) as Record<string, number | undefined>;
          return (
            <>
              <section className="card" aria-labelledby="plan-title">
                <h2 id="plan-title">
                  {billing.label} plan{' '}
                  {billing.complimentary ? <span className="badge info">complimentary</span> : null}
                </h2>
                <p className="muted">
                  Plan <code>{billing.plan}</code>
                  {billing.periodStart ? ` · this period began ${formatTime(billing.periodStart)}` : ''}
                </p>
              </section>
              <section aria-labelledby="limits-title">
                <h2 id="limits-title">Limits and usage</h2>
                <div className="table-wrap" tabIndex={0}>
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Resource</th>
                        <th scope="col">Used</th>
                        <th scope="col">Limit</th>
                        <th scope="col">
                          <span className="visually-hidden">Share used</span>
                        </th>
                      </tr>
                    </thead>
                    <tbody>
                      {Object.entries(billing.limits).map(([resource, limit]) => {
                        const used = usage[resource];
                        const share = used === undefined ? null : Math.min(1, used / Math.max(1, limit));
                        return (
                          <tr key={resource}>
                            <th scope="row">{LABELS[resource] ?? resource}</th>
                            <td>{used === undefined ? '—' : amount(resource, used)}</td>
                            <td>{amount(resource, limit)}</td>
                            <td>
                              {share === null ? null : (
                                <meter
                                  min={0}
                                  max={1}
                                  value={share}
                                  aria-label={`${LABELS[resource] ?? resource} used`}
                                >
                                  {Math.round(share * 100)}%
                                </meter>
                              )}
                            </td>
                          </tr>
                        );
                      })}
                    </tbody>
                  </table>
                </div>
              </section>
              <ModelUsage usage={billing.modelUsage} />
            </>
          );
        }}
      </QueryView>
    </>
  );
}

type BillingModelUsage = Schemas['BillingModelUsageDto'];

/** This month's model tokens, their estimated cost and the organization's budget (docs/usage.md). */
function ModelUsage({ usage }: { usage: BillingModelUsage }) {
  const rows: Array<[string, string]> = [
    ['Model calls', usage.calls.toLocaleString()],
    [
      'Input tokens',
      `${usage.inputTokens.toLocaleString()} (${usage.cachedInputTokens.toLocaleString()} cached)`,
    ],
    [
      'Output tokens',
      `${usage.outputTokens.toLocaleString()} (${usage.reasoningTokens.toLocaleString()} reasoning)`,
    ],
    ['Tokens', usage.totalTokens.toLocaleString()],
    [
      'Estimated cost',
      usage.estimatedCost === null ? 'no price for every model used' : `$${usage.estimatedCost.toFixed(2)}`,
    ],
    [
      'Monthly token budget',
      usage.monthlyTokenBudget === null ? 'none' : usage.monthlyTokenBudget.toLocaleString(),
    ],
  ];
  return (
    <section aria-labelledby="model-usage-title">
      <h2 id="model-usage-title">Model usage in {usage.month}</h2>
      <div className="table-wrap" tabIndex={0}>
        <table>
          <tbody>
            {rows.map(([label, value]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td>{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
