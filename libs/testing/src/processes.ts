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

/** The process's resident memory now, in bytes (0 once it is gone). */
export function rssBytesOf(pid: number): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('VmRSS:'));
    return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
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
