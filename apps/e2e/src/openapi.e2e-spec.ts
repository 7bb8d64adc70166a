import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  createOrganization,
  type ServedOpenApiDocument,
  RawClient,
  REQUEST_FIELDS_WITH_DEFAULTS,
  runningStack,
  runReaches,
  WORKSPACE_ROOT,
} from '#testing';
import openapiTS, { astToString } from 'openapi-typescript';

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
    .reduce<unknown>(
      (node, segment) =>
        typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[segment] : undefined,
      document,
    ) as Schema | undefined;
}

const typeOf = (schema: Schema | undefined) => [schema?.type ?? []].flat();

describe('OpenAPI document', () => {
  let document: ServedOpenApiDocument;
  let dir: string;

  beforeAll(async () => {
    const response = await new RawClient(stack.baseUrl).get<ServedOpenApiDocument>('/docs/openapi.json');
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
    let report: {
      problems: Array<{
        ruleId: string;
        severity: string;
        message: string;
        location: Array<{ pointer?: string }>;
      }>;
    };
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
    const body = (path: string) => document.paths[path].post.requestBody!;
    expect(body('/api/v1/workflows/{id}/runs').required).toBe(false);
    expect(body('/api/v1/workflows/{id}/publish').required).toBe(false);
    expect(body('/api/v1/projects').required).toBe(true);
  });

  it("gives a default only to the request fields the tests' client leaves optional", () => {
    // openapi-typescript types a field with a default as required; libs/testing/src/api-schema.ts
    // relaxes the fields of this list, so a new default must join it.
    const defaulted = pointersWhere(document.components.schemas, (node) => 'default' in node)
      .filter((pointer) => /^#\/\w+Dto\/properties\/\w+$/.test(pointer))
      .map((pointer) => pointer.split('/').at(-1));
    expect([...new Set(defaulted)].sort()).toEqual([...REQUEST_FIELDS_WITH_DEFAULTS].sort());
  });

  it('documents a 400 on every route that takes input, as the contract does', () => {
    const withInput = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => (operation.parameters?.length ?? 0) > 0 || operation.requestBody)
        .map(([method, operation]) => ({
          route: `${method} ${path}`,
          has400: '400' in operation.responses!,
        })),
    );
    expect(withInput).not.toHaveLength(0);
    expect(withInput.filter(({ has400 }) => !has400)).toEqual([]);
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
      // An estimated cost in USD (docs/usage.md).
      `${schemas}/BillingModelUsageDto/properties/estimatedCost`,
      `${schemas}/QueryResultDto/properties/rows/items/items/oneOf/1`,
      `${schemas}/QueryStatementDto/properties/params/items/oneOf/1`,
      `${schemas}/TokenCountsDto/properties/estimatedCost`,
      `${schemas}/UsageRowDto/properties/estimatedCost`,
      // A compensation's retry is a node's retry: fractions of a second allowed.
      '#/…NodeProperties/properties/compensate/properties/retry/properties/backoffSeconds',
      '#/…NodeProperties/properties/params/items/anyOf/0',
      '#/…NodeProperties/properties/retry/properties/backoffSeconds',
      '#/…NodeProperties/properties/seconds',
    ]);
  });

  it('types real answers of the API, as a client generated from it sees them', async () => {
    const org = await createOrganization(stack, { plan: 'free' });
    const answers: Array<{ route: string; method: string; status: number; body: unknown }> = [];
    /** Calls `path` and keeps the answer, filed under the route template it is documented at. */
    // Through raw: each answer is kept as it came, whatever its status, for the compiler to check.
    const call = async (method: string, route: string, path: string, body?: unknown) => {
      const response = await org.api.raw.request<{ id: string }>(method, path, body);
      answers.push({ route, method: method.toLowerCase(), status: response.status, body: response.body });
      return response.body;
    };

    await call('GET', '/api/health', '/api/health');
    const project = await call('POST', '/api/v1/projects', '/api/v1/projects', { name: 'Typed' });
    await call('GET', '/api/v1/projects', '/api/v1/projects?limit=1');
    await call('POST', '/api/v1/projects', '/api/v1/projects', {});
    const workflow = await call(
      'POST',
      '/api/v1/projects/{projectId}/workflows',
      `/api/v1/projects/${project.id}/workflows`,
      {
        name: 'Typed',
        diagram: {
          nodes: [
            { id: 't', position: { x: 0, y: 0 }, data: { type: 'trigger', properties: { kind: 'api' } } },
            {
              id: 'c',
              data: {
                type: 'condition',
                properties: { conditions: [{ left: '{{trigger.n}}', operator: 'greater_than', right: '1' }] },
              },
            },
          ],
          edges: [{ id: 'e', source: 't', target: 'c' }],
        },
      },
    );
    await call('POST', '/api/v1/workflows/{id}/publish', `/api/v1/workflows/${workflow.id}/publish`);
    await call('GET', '/api/v1/workflows/{id}', `/api/v1/workflows/${workflow.id}`);
    const started = await call(
      'POST',
      '/api/v1/workflows/{id}/runs',
      `/api/v1/workflows/${workflow.id}/runs`,
      {
        input: '{"n": 5}',
      },
    );
    await runReaches(org.api, started.id, ['complete'], { intervalMs: 50, what: 'the run to complete' });
    await call('GET', '/api/v1/runs/{id}', `/api/v1/runs/${started.id}`);
    await call('GET', '/api/v1/workflows/{id}/runs', `/api/v1/workflows/${workflow.id}/runs`);
    await call('GET', '/api/v1/runs/{id}', '/api/v1/runs/none');
    const database = await call('POST', '/api/v1/databases', '/api/v1/databases', { name: 'typed' });
    const query = `/api/v1/databases/${database.id}/query`;
    await call('POST', '/api/v1/databases/{id}/query', query, {
      statements: [{ sql: "SELECT 1 AS n, 2.5 AS x, 'a' AS s, NULL AS z, true AS b" }],
    });
    await call('POST', '/api/v1/databases/{id}/query', query, { statements: [{ sql: 'SELECT nope' }] });
    await call('POST', '/api/v1/projects', '/api/v1/projects', { name: 'Second' });
    await call('POST', '/api/v1/projects', '/api/v1/projects', { name: 'Third' });
    await call('POST', '/api/v1/projects', '/api/v1/projects', { name: 'Over the plan' });
    await call('GET', '/api/v1/billing', '/api/v1/billing');
    await call('GET', '/api/v1/usage', '/api/v1/usage?month=2026-11');
    expect(answers.map(({ status }) => status)).toEqual([
      200, 201, 200, 400, 201, 201, 200, 201, 200, 200, 404, 201, 200, 400, 201, 201, 402, 200, 200,
    ]);

    // Generated from the served document into a temporary directory, so it cannot go stale, and as
    // .ts rather than .d.ts, so the compiler checks the generated types as well.
    writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(JSON.stringify(document))));
    // One answer a line, so each compiler error names the route it is about.
    const lines = [
      "import type { paths } from './schema.js';",
      'type Answer<P extends keyof paths, M extends keyof paths[P], S> = paths[P][M] extends { responses: infer R }',
      "  ? S extends keyof R ? R[S] extends { content: { 'application/json': infer B } } ? B : never : never",
      '  : never;',
      ...answers.map(
        ({ route, method, status, body }, index) =>
          `export const answer${index}: Answer<'${route}', '${method}', ${status}> = ${JSON.stringify(body)};`,
      ),
    ];
    writeFileSync(join(dir, 'answers.ts'), lines.join('\n'));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: 'es2022',
          lib: ['es2022'],
          module: 'nodenext',
          types: [],
        },
        files: ['answers.ts'],
      }),
    );
    const tsc = await tool('tsc', ['-p', dir, '--pretty', 'false']);
    const errors = tsc.stdout
      .split('\n')
      .filter(Boolean)
      .map((error) => {
        const line = Number(/answers\.ts\((\d+),/.exec(error)?.[1]);
        const answer = answers[line - lines.length + answers.length - 1];
        return answer ? `${answer.method.toUpperCase()} ${answer.route} ${answer.status}: ${error}` : error;
      });
    expect(errors).toEqual([]);
    expect(tsc.code).toBe(0);
  });

  it('is the document the build exports for the console without a server', async () => {
    const file = join(dir, 'exported.json');
    await new Promise<void>((resolve, reject) =>
      execFile(
        process.execPath,
        [join(WORKSPACE_ROOT, 'dist/apps/gateway/src/docs/export-openapi.js'), file],
        { cwd: WORKSPACE_ROOT },
        (error) => (error ? reject(error) : resolve()),
      ),
    );
    const exported = JSON.parse(readFileSync(file, 'utf8')) as { servers: unknown };
    expect({ ...exported, servers: document.servers }).toEqual(document);
  });
});
