import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import { WORKSPACE_ROOT } from '#testing';

/** When, on what, and on how busy a machine a benchmark ran: the header every result table carries. */
export function benchContext(): { date: string; commit: string; loadavg: string; line: string } {
  const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: WORKSPACE_ROOT,
      encoding: 'utf8',
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: WORKSPACE_ROOT,
      encoding: 'utf8',
    }).trim();
    if (dirty) commit += '+changes';
  } catch {
    // not a git checkout
  }
  const loadavg = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  return { date, commit, loadavg, line: `${date}, commit ${commit}, load average ${loadavg} (1/5/15 min)` };
}

/** A numeric field of a process's /proc status (`VmRSS` in KiB, `Threads`). */
export function statusField(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN);
}

/** A process's resident memory in MiB. */
export function rssMiB(pid: number): number {
  return statusField(pid, 'VmRSS') / 1024;
}

/** The value after `--<name>` on the command line, or `fallback`. */
export function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? (process.argv[index + 1] ?? fallback) : fallback;
}

/** The answer's data when it has the expected status (the test helpers' `expectData` needs Jest). */
export function must<T>(answer: { data?: T; response: Response }, status: number): T {
  if (answer.response.status !== status || answer.data === undefined) {
    throw new Error(`expected ${status}, got ${answer.response.status}`);
  }
  return answer.data;
}
