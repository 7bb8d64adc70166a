import fc from 'fast-check';

import { ContractChecker, operationsOf, requestFor, SQL_PROBES } from './openapi-fuzz.js';

const error = { content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorDto' } } } };
const document = {
  paths: {
    '/things/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', schema: { type: 'string' } },
          { name: 'limit', in: 'query', schema: { type: 'integer' } },
        ],
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
          '404': { description: 'error.code: thing_not_found', ...error },
        },
      },
      patch: {
        parameters: [{ name: 'id', in: 'path', schema: { type: 'string' } }],
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
        responses: { '200': { description: '' } },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id', 'createdAt'],
        properties: { id: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' } },
      },
      ErrorDto: {
        type: 'object',
        required: ['error'],
        properties: {
          error: { type: 'object', required: ['code'], properties: { code: { type: 'string' } } },
        },
      },
    },
  },
};

describe('ContractChecker', () => {
  const [get, patch] = operationsOf(document);
  const checker = new ContractChecker(document);
  const request = { method: 'GET', path: '/things/x' };

  it('reads each operation: its parameters, its body and the codes each status names', () => {
    expect(get).toMatchObject({
      method: 'GET',
      route: '/things/{id}',
      pathParams: ['id'],
      queryParams: ['limit'],
    });
    expect([...get!.statuses]).toEqual([
      ['200', []],
      ['404', ['thing_not_found']],
    ]);
    expect(patch!.bodySchema).toEqual({ $ref: '#/components/schemas/Thing' });
  });

  it('passes an answer the document describes', () => {
    expect(checker.problems(get!, request, 200, { id: 'x', createdAt: '2026-11-25T10:00:00Z' })).toEqual([]);
    expect(checker.problems(get!, request, 404, { error: { code: 'thing_not_found' } })).toEqual([]);
  });

  it('reports a server error, an unlisted status, a body outside the schema and an unnamed code', () => {
    expect(checker.problems(get!, request, 500, { error: { code: 'internal' } })).toEqual([
      expect.stringMatching(/^GET \/things\/x → 500: a server error/),
    ]);
    expect(checker.problems(get!, request, 409, {})).toEqual([
      'GET /things/x → 409: a status GET /things/{id} does not list',
    ]);
    expect(checker.problems(get!, request, 200, { id: 'x', createdAt: 'yesterday' })).toEqual([
      expect.stringMatching(/body outside the schema: .*createdAt must match format "date-time"/),
    ]);
    expect(checker.problems(get!, request, 404, { error: { code: 'not_found' } })).toEqual([
      'GET /things/x → 404: error code not_found is not one of thing_not_found',
    ]);
  });

  it('generates requests for the route, never with an empty or dot segment, with bodies only where one is taken', () => {
    const known = fc.constantFrom('thing-1');
    const options = { oversizeBytes: 10, components: document.components.schemas };
    const gets = fc.sample(requestFor(get!, known, options), { numRuns: 300, seed: 1 });
    expect(gets.every((generated) => /^\/things\/[^/?]+(\?.*)?$/.test(generated.path))).toBe(true);
    expect(gets.some((generated) => generated.path.startsWith('/things/thing-1'))).toBe(true);
    expect(gets.some((generated) => generated.path.includes('?limit='))).toBe(true);
    expect(gets.every((generated) => generated.body === undefined)).toBe(true);
    expect(gets.some((generated) => /^\/things\/\.*(\?|$)/.test(generated.path))).toBe(false);
    const patches = fc.sample(requestFor(patch!, known, options), { numRuns: 300, seed: 1 });
    expect(patches.some((generated) => generated.body !== undefined)).toBe(true);
  });

  it('sends the SQL probes as a batch wherever a body takes statements', () => {
    const query = operationsOf({
      paths: {
        '/things/{id}/query': {
          post: {
            parameters: [{ name: 'id', in: 'path', schema: { type: 'string' } }],
            requestBody: {
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Batch' } } },
            },
            responses: { '200': { description: '' } },
          },
        },
      },
      components: { schemas: { Batch: { type: 'object', properties: { statements: { type: 'array' } } } } },
    })[0]!;
    const options = { oversizeBytes: 10, components: { Batch: { properties: { statements: {} } } } };
    const bodies = fc
      .sample(requestFor(query, fc.constantFrom('thing-1'), options), { numRuns: 300, seed: 1 })
      .map((generated) => JSON.stringify(generated.body));
    for (const sql of SQL_PROBES) expect(bodies).toContain(JSON.stringify({ statements: [{ sql }] }));
    const patches = fc.sample(requestFor(patch!, fc.constantFrom('thing-1'), options), {
      numRuns: 300,
      seed: 1,
    });
    expect(patches.some((generated) => JSON.stringify(generated.body).includes('statements'))).toBe(false);
  });
});
