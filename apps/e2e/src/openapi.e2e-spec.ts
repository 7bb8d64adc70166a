import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ApiClient, runningStack, WORKSPACE_ROOT } from '#testing';

const stack = runningStack();

interface Exited {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a tool of node_modules/.bin from the workspace root and answers how it exited. */
function tool(name: string, args: string[], env: Record<string, string> = {}): Promise<Exited> {
  return new Promise((resolve, reject) => {
    execFile(
      join(WORKSPACE_ROOT, 'node_modules', '.bin', name),
      args,
      { cwd: WORKSPACE_ROOT, env: { ...process.env, ...env }, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') reject(error);
        else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
}

type Schema = { type?: string | string[] } & Record<string, unknown>;

/** The JSON pointer of every schema-like object in `value` that `test` accepts. */
function pointersWhere(value: unknown, test: (node: Schema) => boolean, at = '#'): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const own = !Array.isArray(value) && test(value as Schema) ? [at] : [];
  return [
    ...own,
    ...Object.entries(value).flatMap(([key, child]) =>
      pointersWhere(child, test, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`),
    ),
  ];
}

function resolvePointer(document: unknown, pointer: string): Schema | undefined {
  return pointer
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, segment) => node?.[segment], document);
}

const typeOf = (schema: Schema | undefined) => [schema?.type ?? []].flat();

describe('OpenAPI document', () => {
  let document: any;
  let dir: string;

  beforeAll(async () => {
    const response = await new ApiClient(stack.baseUrl).get('/docs/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
    dir = mkdtempSync(join(tmpdir(), 'flowmesh-openapi-'));
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // Telemetry and the update check are the CLI's only network calls; CI reaches no network.
    const lint = await tool(
      'redocly',
      ['lint', file, '--config', join(WORKSPACE_ROOT, 'redocly.yaml'), '--format=json'],
      { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_NOTIFICATIONS: 'true' },
    );
    // The report is the JSON on stdout; stderr has progress lines and, on Node 20, a deprecation banner.
    let report: { problems: Array<{ ruleId: string; severity: string; message: string; location: any[] }> };
    try {
      report = JSON.parse(lint.stdout);
    } catch {
      throw new Error(`redocly lint exited ${lint.code} without a JSON report:\n${lint.stderr}`);
    }
    expect(
      report.problems.map(
        (problem) =>
          `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer}: ${problem.message}`,
      ),
    ).toEqual([]);
    expect(lint.code).toBe(0);
  });

  it('marks a body optional where the contract gives it a default', () => {
    const body = (path: string) => document.paths[path].post.requestBody;
    expect(body('/api/v1/workflows/{id}/runs').required).toBe(false);
    expect(body('/api/v1/workflows/{id}/publish').required).toBe(false);
    expect(body('/api/v1/projects').required).toBe(true);
  });

  it('declares every integer as an integer', () => {
    const schemas = '#/components/schemas';
    for (const pointer of [
      `${schemas}/WorkflowRunSummaryDto/properties/version`,
      `${schemas}/WorkflowRunDto/properties/version`,
      `${schemas}/RunStepDto/properties/ms`,
      `${schemas}/WorkflowSummaryDto/properties/publishedVersion`,
      `${schemas}/WorkflowDetailDto/properties/publishedVersion`,
      `${schemas}/WorkflowVersionDto/properties/number`,
      `${schemas}/BillingDto/properties/limits/additionalProperties`,
      `${schemas}/BillingUsageDto/properties/projects`,
      `${schemas}/BillingUsageDto/properties/runs`,
      `${schemas}/QueryMetaDto/properties/rowsRead`,
      `${schemas}/QueryMetaDto/properties/rowsWritten`,
      `${schemas}/ErrorDetailsDto/properties/limit`,
      `${schemas}/ErrorDetailsDto/properties/statementIndex`,
      `${schemas}/ErrorDetailsDto/properties/bytesRead`,
    ]) {
      expect({ pointer, type: typeOf(resolvePointer(document, pointer)) }).toEqual({
        pointer,
        type: expect.arrayContaining(['integer']),
      });
    }
    const limits = pointersWhere(document.paths, (node) => node.in === 'query' && node.name === 'limit');
    expect(limits).not.toHaveLength(0);
    for (const pointer of limits) {
      expect({ pointer, schema: resolvePointer(document.paths, pointer)?.schema }).toEqual({
        pointer,
        schema: expect.objectContaining({ type: 'integer', minimum: 1, maximum: 100, default: 20 }),
      });
    }
    // What remains `number` may be fractional: SQL values, and the seconds of a delay or a retry.
    const numbers = pointersWhere(document, (node) => typeOf(node).includes('number')).map((pointer) =>
      pointer.replace(/^#\/components\/schemas\/\w+NodeProperties\//, '#/…NodeProperties/'),
    );
    expect([...new Set(numbers)].sort()).toEqual([
      `${schemas}/QueryResultDto/properties/rows/items/items/oneOf/1`,
      `${schemas}/QueryStatementDto/properties/params/items/oneOf/1`,
      '#/…NodeProperties/properties/params/items/anyOf/0',
      '#/…NodeProperties/properties/retry/properties/backoffSeconds',
      '#/…NodeProperties/properties/seconds',
    ]);
  });
});
