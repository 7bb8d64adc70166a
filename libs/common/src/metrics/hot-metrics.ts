import { type Metric, register } from 'prom-client';

/**
 * Counters and histograms for the hot paths (every HTTP request, NATS request and step). prom-client's
 * own `labels(...)` children validate, copy and hash their label values again on every `inc` or
 * `observe` (about 1 µs each on the benchmark machine); a series here is an object the caller keeps,
 * and recording into it is an addition and, for a histogram, a walk over its buckets. They register on
 * the default registry like any prom-client metric and are exposed the same way.
 */
type LabelValues = Record<string, string>;

export class CounterSeries {
  value = 0;
  constructor(readonly labels: LabelValues) {}

  inc(by = 1): void {
    this.value += by;
  }
}

export class HistogramSeries {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: LabelValues,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    let bucket = 0;
    while (bucket < this.bounds.length && value > (this.bounds[bucket] ?? Infinity)) bucket += 1;
    this.counts[bucket] = (this.counts[bucket] ?? 0) + 1;
    this.sum += value;
    this.count += 1;
  }
}

interface Options<L extends string> {
  name: string;
  help: string;
  labelNames: readonly L[];
}

abstract class HotMetric<L extends string, S> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly aggregator = 'sum';
  private readonly series = new Map<string, S>();

  constructor({ name, help, labelNames }: Options<L>) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    register.registerMetric(this as unknown as Metric);
  }

  /** The series of these label values, made on first use: look it up once and keep it. */
  labels(...values: string[]): S {
    const key = values.join('\u0000');
    let found = this.series.get(key);
    if (!found) {
      const labels = Object.fromEntries(this.labelNames.map((label, index) => [label, values[index] ?? '']));
      found = this.create(labels);
      this.series.set(key, found);
    }
    return found;
  }

  protected all(): IterableIterator<S> {
    return this.series.values();
  }

  protected abstract create(labels: LabelValues): S;

  reset(): void {
    this.series.clear();
  }
}

export class HotCounter<L extends string> extends HotMetric<L, CounterSeries> {
  readonly type = 'counter';

  protected create(labels: LabelValues): CounterSeries {
    return new CounterSeries(labels);
  }

  /** What the registry formats: one line per series. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: unknown[] }> {
    const values = [...this.all()].map((series) => ({ labels: series.labels, value: series.value }));
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }
}

export class HotHistogram<L extends string> extends HotMetric<L, HistogramSeries> {
  readonly type = 'histogram';
  private readonly bounds: readonly number[];

  constructor(options: Options<L> & { buckets: readonly number[] }) {
    super(options);
    this.bounds = [...options.buckets].sort((a, b) => a - b);
  }

  protected create(labels: LabelValues): HistogramSeries {
    return new HistogramSeries(labels, this.bounds);
  }

  /** Cumulative `_bucket` lines up to `+Inf`, then `_sum` and `_count`, per series. */
  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: unknown[] }> {
    const values: unknown[] = [];
    for (const series of this.all()) {
      let cumulative = 0;
      this.bounds.forEach((bound, index) => {
        cumulative += series.counts[index] ?? 0;
        values.push({
          labels: { le: bound, ...series.labels },
          value: cumulative,
          metricName: `${this.name}_bucket`,
        });
      });
      values.push({
        labels: { le: '+Inf', ...series.labels },
        value: series.count,
        metricName: `${this.name}_bucket`,
      });
      values.push({ labels: series.labels, value: series.sum, metricName: `${this.name}_sum` });
      values.push({ labels: series.labels, value: series.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({
      name: this.name,
      help: this.help,
      type: this.type,
      aggregator: this.aggregator,
      values,
    });
  }
}
