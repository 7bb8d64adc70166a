import { DatabaseSubjects, QueryStreamHeaders } from '#contracts';
import {
  connectAs,
  createDatabaseIn,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  nodes,
  type OrganizationFixture,
  type RawResponse,
  runningStack,
} from '#testing';
import { headers, type NatsConnection } from '@nats-io/transport-node';

const stack = runningStack();

/** The contract: every invalid_request lists each problem in `details.issues` as `{path, message}`. */
function issuesOf(body: unknown): Array<{ path: string; message: string }> {
  const { error } = (body ?? {}) as Partial<ErrorBody>;
  expect(error?.code).toBe('invalid_request');
  const issues = error?.details?.issues;
  expect(issues).toEqual(expect.arrayContaining([{ path: expect.any(String), message: expect.any(String) }]));
  return issues ?? [];
}

describe('every invalid_request names its issues', () => {
  let org: OrganizationFixture;
  let databaseId: string;
  let workflowId: string;

  beforeAll(async () => {
    org = await createOrganization(stack);
    databaseId = await createDatabaseIn(org.api, 'issues');
    const projectId = await createProject(org.api, 'Issues');
    workflowId = await createWorkflow(
      org.api,
      projectId,
      { nodes: [nodes.trigger('t')], edges: [] },
      { name: 'Issues', publish: false },
    );
  });

  // Each request is wrong on purpose, most in ways the typed client would not compile: all go raw.
  it.each<[string, () => Promise<RawResponse>, string]>([
    ['malformed JSON', () => org.api.raw.post('/api/v1/projects', '{"name": '), 'body'],
    ['a JSON array body', () => org.api.raw.post('/api/v1/projects', '[1,2]'), 'body'],
    ['a JSON string body', () => org.api.raw.post('/api/v1/projects', '"Acme"'), 'body'],
    ['a JSON number body', () => org.api.raw.post('/api/v1/projects', '5'), 'body'],
    ['a missing field', () => org.api.raw.post('/api/v1/projects', {}), 'name'],
    ['a field of the wrong type', () => org.api.raw.post('/api/v1/projects', { name: 5 }), 'name'],
    ['a cursor this API did not make', () => org.api.raw.get('/api/v1/projects?cursor=nope'), 'cursor'],
    [
      'a cursor the runner cannot read',
      () => org.api.raw.get(`/api/v1/workflows/${workflowId}/runs?cursor=nope`),
      'cursor',
    ],
    ['a limit that is not a number', () => org.api.raw.get('/api/v1/projects?limit=many'), 'limit'],
    ['a fractional limit', () => org.api.raw.get('/api/v1/projects?limit=2.5'), 'limit'],
    ['a limit out of range', () => org.api.raw.get('/api/v1/skills?limit=0'), 'limit'],
    ['a repeated limit', () => org.api.raw.get('/api/v1/databases?limit=1&limit=2'), 'limit'],
    ['a repeated cursor', () => org.api.raw.get('/api/v1/projects?cursor=a&cursor=b'), 'cursor'],
    ['a path that is not a valid URL', () => org.api.raw.get('/api/v1/projects/%E0%A4%A'), 'path'],
    ['an over-long path parameter', () => org.api.raw.get(`/api/v1/projects/${'a'.repeat(150)}`), 'path'],
    [
      'a run flag of the wrong type',
      () => org.api.raw.post(`/api/v1/workflows/${workflowId}/runs`, { draft: 'yes' }),
      'draft',
    ],
    [
      'a diagram without the shape of one',
      () => org.api.raw.patch(`/api/v1/workflows/${workflowId}`, { diagram: { nodes: 'none', edges: [] } }),
      'diagram.nodes',
    ],
    [
      'an empty query batch, refused by the database service behind the query stream',
      () => org.api.raw.post(`/api/v1/databases/${databaseId}/query`, { statements: [] }),
      'statements',
    ],
    [
      'a query parameter that is no SQL value',
      () =>
        org.api.raw.post(`/api/v1/databases/${databaseId}/query`, {
          statements: [{ sql: 'SELECT ?', params: [{}] }],
        }),
      'statements.0.params',
    ],
  ])('%s', async (_label, send, path) => {
    const response = await send();
    expect(response.status).toBe(400);
    expect(issuesOf(response.body).map((issue) => issue.path)).toContain(path);
  });

  describe("the database service's query stream", () => {
    let nats: NatsConnection;

    beforeAll(async () => {
      // The gateway's identity: the only one allowed to send on the query stream.
      nats = await connectAs(stack, 'gateway');
    });

    afterAll(async () => {
      await nats?.close();
    });

    /** Sends one part as the gateway's client would, with `total` as the announced length. */
    async function send(data: string, total: number) {
      const requestHeaders = headers();
      requestHeaders.set(QueryStreamHeaders.total, String(total));
      const answer = await nats.request(
        `${stack.env.NATS_SUBJECT_PREFIX}${DatabaseSubjects.queryStream.bare}`,
        new TextEncoder().encode(data),
        { headers: requestHeaders, timeout: 10_000 },
      );
      expect(answer.headers?.get(QueryStreamHeaders.status)).toBe('error');
      return { error: JSON.parse(new TextDecoder().decode(answer.data)) };
    }

    it('names the issue of a request that is not JSON', async () => {
      expect(issuesOf(await send('not json', 8))).toEqual([{ path: 'body', message: expect.any(String) }]);
    });

    it('names the issue of parts that do not add up', async () => {
      expect(issuesOf(await send('{"principal": {}}', 3))).toEqual([
        { path: 'body', message: expect.stringContaining(QueryStreamHeaders.total) },
      ]);
    });
  });
});
