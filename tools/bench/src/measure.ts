import { readdirSync, readFileSync } from 'node:fs';

import autocannon from 'autocannon';

export interface LoadResult {
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** Requests answered 2xx over the whole run. */
  succeeded: number;
  errors: number;
  /** The load generator's own CPU, as a share of the whole machine. */
  generatorCpu: number;
  /** The whole machine's CPU use during the run. */
  machineCpu: number;
}

/** The whole machine's busy and total CPU ticks since boot, from /proc/stat. */
export function machineTicks(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((sum, value) => sum + value, 0);
  return { busy: total - idle, total };
}

export async function load(options: autocannon.Options & { connections: number }): Promise<LoadResult> {
  const cpuBefore = process.cpuUsage();
  const ticksBefore = machineTicks();
  const started = process.hrtime.bigint();
  const result = await autocannon({ ...options, pipelining: 1 });
  const wallMicros = Number(process.hrtime.bigint() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const ticksAfter = machineTicks();
  const cores = 2;
  return {
    connections: options.connections,
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    succeeded: result['2xx'],
    errors: result.errors,
    generatorCpu: (cpu.user + cpu.system) / wallMicros / cores,
    machineCpu: (ticksAfter.busy - ticksBefore.busy) / Math.max(1, ticksAfter.total - ticksBefore.total),
  };
}

export function table(title: string, rows: LoadResult[], ceiling?: LoadResult[]): string {
  const lines = [
    `#### ${title}`,
    '',
    `| connections | req/s | p50 ms | p99 ms | non-2xx | ${ceiling ? 'share of ceiling | ' : ''}load generator CPU | machine CPU |`,
    `| --- | --- | --- | --- | --- | ${ceiling ? '--- | ' : ''}--- | --- |`,
  ];
  for (const row of rows) {
    const base = ceiling?.find((candidate) => candidate.connections === row.connections);
    lines.push(
      `| ${row.connections} | ${Math.round(row.requestsPerSecond)} | ${row.p50} | ${row.p99} | ${row.non2xx + row.errors} | ${
        base ? `${Math.round((row.requestsPerSecond / base.requestsPerSecond) * 100)}% | ` : ''
      }${Math.round(row.generatorCpu * 100)}% | ${Math.round(row.machineCpu * 100)}% |`,
    );
  }
  return lines.join('\n');
}

const TICKS_PER_SECOND = 100;

/** CPU seconds used so far by a process, from /proc (user + system). */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Pids of every process whose command is `name` (Postgres backends, the NATS server). */
export function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}
