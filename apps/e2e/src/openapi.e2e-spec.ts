import { ApiClient, runningStack } from '#testing';

const stack = runningStack();

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

  beforeAll(async () => {
    const response = await new ApiClient(stack.baseUrl).get('/docs/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
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
