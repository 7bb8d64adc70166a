import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { WORKSPACE_ROOT } from './service-process.js';

const run = promisify(execFile);

/** Runs the admin CLI as an operator would, and answers its `--json` output. */
export async function adminCli<T = Record<string, string>>(
  args: string[],
  env: Record<string, string>,
): Promise<T> {
  const { stdout } = await run(
    process.execPath,
    [join(WORKSPACE_ROOT, 'dist/tools/admin/src/main.js'), ...args, '--json'],
    {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, ...env },
    },
  );
  return JSON.parse(stdout) as T;
}
