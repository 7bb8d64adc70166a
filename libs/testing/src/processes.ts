import { readdirSync, readFileSync } from 'node:fs';

/** The fields of /proc/<pid>/stat after the command, which may itself hold spaces and parentheses. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Whether the process exists and has not exited (a zombie waiting for its parent counts as exited). */
export function isRunning(pid: number): boolean {
  const state = statFields(pid)?.[0];
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** CPU time (user + system, in clock ticks) a process has used so far. */
export function cpuTicksOf(pid: number): number {
  const fields = statFields(pid);
  return fields ? Number(fields[11]) + Number(fields[12]) : 0;
}

function statusBytes(pid: number, field: string): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith(`${field}:`));
    return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

/** The process's resident memory now, in bytes (0 once it is gone). */
export function rssBytesOf(pid: number): number {
  return statusBytes(pid, 'VmRSS');
}

/** The most resident memory the process has had since it started, in bytes. */
export function peakRssBytesOf(pid: number): number {
  return statusBytes(pid, 'VmHWM');
}

/** The process's command line, its arguments joined by spaces ('' once it is gone). */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/**
 * The engine worker of a database service process (docs/databases.md, "The engine worker"), or
 * undefined while it has none.
 */
export function engineWorkerOf(servicePid: number): number | undefined {
  return processTreeOf(servicePid).find(
    (pid) => pid !== servicePid && commandOf(pid).includes('engine.worker.js'),
  );
}

/** A process and all its descendants, parents before children. */
export function processTreeOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(statFields(Number(entry))?.[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let index = 0; index < tree.length; index += 1) tree.push(...(children.get(tree[index] ?? -1) ?? []));
  return tree;
}
