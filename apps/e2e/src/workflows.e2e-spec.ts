import { DIAGRAM_ID_MAX_LENGTH, DIAGRAM_MAX_NODES, NODE_TYPE_SCHEMAS } from '#contracts';
import {
  ApiClient,
  createDraft,
  createMember,
  createOrganization,
  createProject,
  edge,
  type ErrorBody,
  getWorkflow,
  invalidNode,
  type MemberFixture,
  node,
  nodes,
  type OpenApiDocument,
  type OrganizationFixture,
  publishWorkflow,
  runningStack,
  statusOf,
  type TestDiagram,
} from '#testing';
import pg from 'pg';

const stack = runningStack();

/** A diagram that publishes: a manual trigger followed by a delay. */
const VALID: TestDiagram = {
  nodes: [nodes.trigger('start', { kind: 'manual' }), nodes.delay('wait', 5)],
  edges: [edge('start-wait', 'start', 'wait')],
};

const UNKNOWN_ID = '01a1fda9-ac47-73ca-aacb-8e38ce781792';

/** The UTC offset of New York at `at`, in hours (-5 in winter, -4 in summer). */
function newYorkOffset(at: Date): number {
  const name = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', timeZoneName: 'shortOffset' })
    .formatToParts(at)
    .find((part) => part.type === 'timeZoneName')!.value;
  return Number(name.replace('GMT', ''));
}

/** New York's local calendar date at `at`. */
function newYorkDate(at: Date): { year: number; month: number; day: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/New_York',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((part) => part.type === type)!.value);
  return { year: get('year'), month: get('month'), day: get('day') };
}

/** The next instant New York's offset changes from `from` hours, found with Intl alone (not croner). */
function nextTransition(from: number): Date {
  const hour = 3_600_000;
  let at = Math.ceil(Date.now() / hour) * hour + hour;
  for (let steps = 0; steps < 400 * 24; steps += 1, at += hour) {
    if (newYorkOffset(new Date(at - hour)) === from && newYorkOffset(new Date(at)) !== from)
      return new Date(at);
  }
  throw new Error('no daylight-saving change in New York within 400 days');
}

const iso = (year: number, month: number, day: number, time: string) =>
  `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T${time}.000Z`;

describe('workflows', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let member: MemberFixture;
  let projectId: string;
  let db: pg.Client;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    member = await createMember(stack, org.organizationId);
    projectId = await createProject(org.api);
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db.end();
  });

  describe('drafts', () => {
    it('creates a workflow and answers every field of Workflow, WorkflowDetail and WorkflowSummary', async () => {
      const created = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: {
          name: 'Lead follow-up',
          description: 'Call back new leads',
          diagram: VALID,
        },
      });
      expect(created.response.status).toBe(201);
      expect(created.data).toEqual({
        id: expect.any(String),
        projectId,
        name: 'Lead follow-up',
        description: 'Call back new leads',
        publishedVersion: null,
        pausedAt: null,
        createdBy: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        diagram: VALID,
      });
      const id = created.data!.id;

      const detail = await org.api.GET('/api/v1/workflows/{id}', { params: { path: { id } } });
      expect(detail.response.status).toBe(200);
      expect(detail.data).toEqual({ ...created.data, nextRunAt: null });

      const listed = await org.api.listAll('/api/v1/projects/{projectId}/workflows', { path: { projectId } });
      const summary = listed.find((item) => item.id === id);
      expect(summary).toEqual({ ...created.data, diagram: undefined });
      expect(Object.keys(summary!)).not.toContain('diagram');
    });

    it('starts with an empty diagram and a null description, and records the member who created it', async () => {
      const created = await createDraft(member.api, projectId, { name: 'Empty' });
      expect(created).toMatchObject({
        description: null,
        createdBy: member.userId,
        diagram: { nodes: [], edges: [] },
      });
    });

    it('saves drafts that could not be published yet', async () => {
      const unfinished = {
        nodes: [invalidNode('a', 'not-a-type', { anything: true })],
        edges: [edge('e', 'a', 'nowhere')],
      };
      const created = await createDraft(org.api, projectId, { diagram: unfinished });
      expect(created.diagram).toEqual(unfinished);
    });

    it('stores and returns every extra layout property unchanged, at every level', async () => {
      const diagram = {
        viewport: { x: -12.5, y: 40, zoom: 0.75 },
        nodes: [
          {
            id: 'start',
            type: 'custom',
            position: { x: 0, y: 0 },
            measured: { width: 180, height: 64 },
            selected: false,
            data: {
              type: 'trigger',
              label: 'Début ✓',
              icon: null,
              properties: { kind: 'manual', label: 'Go', ui: { collapsed: true, tags: ['a', 1, null] } },
            },
          },
          {
            id: 'wait',
            position: { x: 0, y: 120 },
            data: { type: 'delay', properties: { seconds: 1 }, notes: [{ at: 1, text: 'x' }] },
          },
        ],
        edges: [
          {
            id: 'e1',
            source: 'start',
            target: 'wait',
            sourceHandle: null,
            animated: true,
            style: { stroke: '#f00' },
          },
        ],
        meta: { version: 3, layout: [[1, 2], [3]] },
      };
      const created = await createDraft(org.api, projectId, { diagram });
      expect(JSON.stringify(created.diagram)).toBe(JSON.stringify(diagram));
      const read = await org.api.GET('/api/v1/workflows/{id}', { params: { path: { id: created.id } } });
      expect(JSON.stringify(read.data!.diagram)).toBe(JSON.stringify(diagram));

      const moved = { ...diagram, viewport: { x: 1, y: 2, zoom: 2 }, extra: { deep: { deeper: [true] } } };
      const patched = await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: created.id } },
        body: { diagram: moved },
      });
      expect(patched.response.status).toBe(200);
      expect(JSON.stringify(patched.data!.diagram)).toBe(JSON.stringify(moved));
      expect(JSON.stringify((await getWorkflow(org.api, created.id)).diagram)).toBe(JSON.stringify(moved));
      await publishWorkflow(org.api, created.id);
    });

    it.each([
      ['not an object', 'nodes', ['diagram']],
      ['null', null, ['diagram']],
      ['without nodes', { edges: [] }, ['diagram.nodes']],
      ['without edges', { nodes: [] }, ['diagram.edges']],
      ['nodes not an array', { nodes: {}, edges: [] }, ['diagram.nodes']],
      [
        'a node without id',
        { nodes: [{ data: { type: 'trigger', properties: {} } }], edges: [] },
        ['diagram.nodes.0.id'],
      ],
      ['a node without data', { nodes: [{ id: 'a' }], edges: [] }, ['diagram.nodes.0.data']],
      [
        'data without type, properties an array',
        { nodes: [{ id: 'a', data: { properties: [] } }], edges: [] },
        ['diagram.nodes.0.data.type', 'diagram.nodes.0.data.properties'],
      ],
      [
        'an edge without target, source a number, sourceHandle a number',
        { nodes: [nodes.trigger('a', { kind: 'manual' })], edges: [{ id: 'e', source: 1, sourceHandle: 2 }] },
        ['diagram.edges.0.source', 'diagram.edges.0.target', 'diagram.edges.0.sourceHandle'],
      ],
      [
        `ids longer than ${DIAGRAM_ID_MAX_LENGTH} characters`,
        {
          nodes: [
            nodes.trigger('a', { kind: 'manual' }),
            nodes.trigger('n'.repeat(DIAGRAM_ID_MAX_LENGTH + 1), { kind: 'manual' }),
          ],
          edges: [
            edge('e'.repeat(DIAGRAM_ID_MAX_LENGTH + 1), 'a', 'b'),
            edge('f', 'a', 's'.repeat(DIAGRAM_ID_MAX_LENGTH + 1)),
          ],
        },
        ['diagram.nodes.1.id', 'diagram.edges.0.id', 'diagram.edges.1.target'],
      ],
    ])('refuses a diagram %s on create and on PATCH, naming each problem', async (_label, diagram, paths) => {
      // Diagrams the document refuses: sent as they are, past the typed client.
      const created = await org.api.raw.post<ErrorBody>(`/api/v1/projects/${projectId}/workflows`, {
        name: 'Bad',
        diagram,
      });
      expect(created.status).toBe(400);
      expect(created.body.error.code).toBe('invalid_request');
      const createdPaths = created.body.error.details?.issues?.map((issue) => issue.path);
      expect(createdPaths).toEqual(expect.arrayContaining(paths));

      const existing = await createDraft(org.api, projectId, { diagram: VALID });
      const patched = await org.api.raw.patch<ErrorBody>(`/api/v1/workflows/${existing.id}`, { diagram });
      expect(patched.status).toBe(400);
      expect(patched.body.error.code).toBe('invalid_request');
      expect(patched.body.error.details?.issues?.map((issue) => issue.path)).toEqual(
        expect.arrayContaining(paths),
      );
      expect((await getWorkflow(org.api, existing.id)).diagram).toEqual(VALID);
    });

    it('names the node or edge of a shape problem', async () => {
      const response = await org.api.raw.post<ErrorBody>(`/api/v1/projects/${projectId}/workflows`, {
        name: 'Bad',
        diagram: {
          nodes: [{ id: 'n1', data: { type: 7, properties: {} } }],
          edges: [{ id: 'e1', source: 'n1' }],
        },
      });
      expect(response.body.error.details?.issues).toEqual(
        expect.arrayContaining([
          { path: 'diagram.nodes.0.data.type', nodeId: 'n1', message: expect.any(String) },
          { path: 'diagram.edges.0.target', edgeId: 'e1', message: expect.any(String) },
        ]),
      );
    });

    it('validates name and description on create and PATCH', async () => {
      const bad = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: {
          name: 'n'.repeat(101),
          description: 'd'.repeat(501),
        },
      });
      expect(bad.response.status).toBe(400);
      expect(bad.error?.error.details?.issues?.map((issue) => issue.path)).toEqual(
        expect.arrayContaining(['name', 'description']),
      );
      // Without the name the document requires: sent past the typed client.
      const missing = await org.api.raw.post<ErrorBody>(`/api/v1/projects/${projectId}/workflows`, {
        description: 'x',
      });
      expect(missing.status).toBe(400);
      expect(missing.body.error.details?.issues?.map((issue) => issue.path)).toContain('name');

      const existing = await createDraft(org.api, projectId);
      for (const body of [{ name: '' }, { name: null }, { description: 'd'.repeat(501) }]) {
        const response = await org.api.raw.patch<ErrorBody>(`/api/v1/workflows/${existing.id}`, body);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('invalid_request');
      }
      const limits = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: {
          name: 'n'.repeat(100),
          description: 'd'.repeat(500),
        },
      });
      expect(limits.response.status).toBe(201);
    });

    it('PATCH changes only the fields sent, and only the draft', async () => {
      const created = await createDraft(org.api, projectId, { description: 'first', diagram: VALID });
      await publishWorkflow(org.api, created.id);

      const renamed = await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: created.id } },
        body: { name: 'Renamed' },
      });
      expect(renamed.response.status).toBe(200);
      expect(renamed.data).toMatchObject({
        name: 'Renamed',
        description: 'first',
        diagram: VALID,
        publishedVersion: 1,
      });
      expect(Date.parse(renamed.data!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));

      const draft = {
        nodes: [nodes.trigger('start', { kind: 'manual' }), nodes.delay('later', 60)],
        edges: [edge('x', 'start', 'later')],
      };
      const saved = await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: created.id } },
        body: {
          diagram: draft,
          description: null,
        },
      });
      expect(saved.data).toMatchObject({
        name: 'Renamed',
        description: null,
        diagram: draft,
        publishedVersion: 1,
      });
      expect(
        (await org.api.PATCH('/api/v1/workflows/{id}', { params: { path: { id: created.id } }, body: {} }))
          .data,
      ).toEqual(saved.data);

      const versions = await org.api.listAll('/api/v1/workflows/{id}/versions', { path: { id: created.id } });
      expect(versions.map((version) => version.number)).toEqual([1]);
      // The draft is what publishes next.
      const second = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: created.id } },
      });
      expect(second.data!.number).toBe(2);
    });

    it('pages workflows of a project newest first', async () => {
      const project = await createProject(org.api);
      for (const name of ['w0', 'w1', 'w2']) await createDraft(org.api, project, { name });
      const first = await org.api.GET('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId: project }, query: { limit: 2 } },
      });
      expect(first.data!.data.map((item) => item.name)).toEqual(['w2', 'w1']);
      const second = await org.api.GET('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId: project }, query: { limit: 2, cursor: first.data!.nextCursor! } },
      });
      expect(second.data).toEqual({ data: [expect.objectContaining({ name: 'w0' })], nextCursor: null });
      for (const query of ['limit=0', 'limit=101', 'cursor=nope']) {
        // Query strings the document refuses, as they are.
        const response = await org.api.raw.get<ErrorBody>(`/api/v1/projects/${project}/workflows?${query}`);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('invalid_request');
      }
    });

    it('answers project_not_found for a missing, malformed or foreign project', async () => {
      const foreign = await createProject(other.api);
      for (const id of [UNKNOWN_ID, 'not-an-id', foreign]) {
        const list = await org.api.GET('/api/v1/projects/{projectId}/workflows', {
          params: { path: { projectId: id } },
        });
        expect(list.response.status).toBe(404);
        expect(list.error?.error.code).toBe('project_not_found');
        const create = await org.api.POST('/api/v1/projects/{projectId}/workflows', {
          params: { path: { projectId: id } },
          body: { name: 'x' },
        });
        expect(create.response.status).toBe(404);
        expect(create.error?.error.code).toBe('project_not_found');
      }
      expect(
        await other.api.listAll('/api/v1/projects/{projectId}/workflows', { path: { projectId: foreign } }),
      ).toEqual([]);
    });

    it('answers workflow_not_found on every route for an unknown or malformed id', async () => {
      for (const id of [UNKNOWN_ID, 'not-an-id']) {
        const responses = [
          await org.api.GET('/api/v1/workflows/{id}', { params: { path: { id } } }),
          await org.api.PATCH('/api/v1/workflows/{id}', { params: { path: { id } }, body: { name: 'x' } }),
          await org.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id } } }),
          await org.api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id } } }),
          await org.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id } } }),
          await org.api.POST('/api/v1/workflows/{id}/resume', { params: { path: { id } } }),
          await org.api.GET('/api/v1/workflows/{id}/versions', { params: { path: { id } } }),
        ];
        for (const response of responses) {
          expect(response.response.status).toBe(404);
          expect(response.error?.error).toEqual({ code: 'workflow_not_found', message: expect.any(String) });
        }
      }
    });
  });

  describe('publish', () => {
    it('freezes the draft as version 1, 2, 3 and lists versions newest first', async () => {
      const workflow = await createDraft(org.api, projectId, { diagram: VALID });
      const first = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflow.id } },
      });
      expect(first.response.status).toBe(201);
      expect(first.data).toEqual({
        id: expect.any(String),
        workflowId: workflow.id,
        number: 1,
        timeZone: 'UTC',
        publishedBy: null,
        publishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const second = await member.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflow.id } },
        body: {
          timeZone: 'Europe/Paris',
        },
      });
      expect(second.data).toMatchObject({ number: 2, timeZone: 'Europe/Paris', publishedBy: member.userId });
      const third = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflow.id } },
        body: {},
      });
      expect(third.data).toMatchObject({ number: 3, timeZone: 'UTC' });

      expect((await getWorkflow(org.api, workflow.id)).publishedVersion).toBe(3);
      const page = await org.api.GET('/api/v1/workflows/{id}/versions', {
        params: { path: { id: workflow.id } },
      });
      expect(page.data).toEqual({ data: [third.data, second.data, first.data], nextCursor: null });
      const one = await org.api.GET('/api/v1/workflows/{id}/versions', {
        params: { path: { id: workflow.id }, query: { limit: 1 } },
      });
      expect(one.data!.data).toEqual([third.data]);
      const rest = await org.api.GET('/api/v1/workflows/{id}/versions', {
        params: { path: { id: workflow.id }, query: { limit: 2, cursor: one.data!.nextCursor! } },
      });
      expect(rest.data).toEqual({ data: [second.data, first.data], nextCursor: null });
      const empty = await org.api.GET('/api/v1/workflows/{id}/versions', {
        params: { path: { id: workflow.id }, query: { limit: 0 } },
      });
      expect(empty.response.status).toBe(400);
    });

    it('gives concurrent publishes consecutive numbers, never the same one twice', async () => {
      const workflow = await createDraft(org.api, projectId, { diagram: VALID });
      const publishes = await Promise.all(
        Array.from({ length: 8 }, () =>
          org.api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id: workflow.id } } }),
        ),
      );
      expect(publishes.map((response) => response.response.status)).toEqual(Array(8).fill(201));
      const numbers = publishes.map((response) => response.data!.number).sort((a, b) => a - b);
      expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const listed = await org.api.listAll('/api/v1/workflows/{id}/versions', {
        path: { id: workflow.id },
        limit: 3,
      });
      expect(listed.map((version) => version.number)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
      expect((await getWorkflow(org.api, workflow.id)).publishedVersion).toBe(8);
    });

    it.each([
      ['an unknown zone', 'Mars/Olympus_Mons'],
      ['a UTC offset', '+02:00'],
      ['an empty string', ''],
      ['a number', 5],
      ['null', null],
    ])('refuses %s as timeZone with invalid_request and saves nothing', async (_label, timeZone) => {
      const workflow = await createDraft(org.api, projectId, { diagram: VALID });
      // Some of these are not strings, which the document refuses: sent past the typed client.
      const response = await org.api.raw.post<ErrorBody>(`/api/v1/workflows/${workflow.id}/publish`, {
        timeZone,
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(response.body.error.details?.issues?.map((issue) => issue.path)).toContain('timeZone');
      expect((await getWorkflow(org.api, workflow.id)).publishedVersion).toBeNull();
    });

    it('records the zone database spelling of a time zone written in another case', async () => {
      const workflow = await createDraft(org.api, projectId, { diagram: VALID });
      const response = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflow.id } },
        body: {
          timeZone: 'america/new_york',
        },
      });
      expect(response.data!.timeZone).toBe('America/New_York');
    });

    const manual = nodes.trigger('t', { kind: 'manual' });
    const wait = (id: string) => nodes.delay(id, 1);
    const cases: Array<[string, TestDiagram, Array<Record<string, unknown>>]> = [
      ['no trigger', { nodes: [wait('a')], edges: [] }, [{ path: 'nodes' }]],
      [
        'duplicate node ids',
        { nodes: [manual, wait('a'), wait('a')], edges: [] },
        [{ path: 'nodes.2.id', nodeId: 'a' }],
      ],
      [
        'duplicate edge ids',
        { nodes: [manual, wait('a'), wait('b')], edges: [edge('e', 't', 'a'), edge('e', 't', 'b')] },
        [{ path: 'edges.1.id', edgeId: 'e' }],
      ],
      [
        'an edge to a missing node',
        { nodes: [manual], edges: [edge('dangling', 't', 'ghost')] },
        [{ path: 'edges.0.target', edgeId: 'dangling' }],
      ],
      [
        'an edge from a missing node',
        { nodes: [manual, wait('a')], edges: [edge('orphan', 'ghost', 'a')] },
        [{ path: 'edges.0.source', edgeId: 'orphan' }],
      ],
      [
        'an edge into a trigger',
        { nodes: [manual, wait('a')], edges: [edge('back', 'a', 't')] },
        [{ path: 'edges.0.target', edgeId: 'back', nodeId: 't' }],
      ],
      [
        'a cycle',
        {
          nodes: [manual, wait('a'), wait('b')],
          edges: [edge('1', 't', 'a'), edge('2', 'a', 'b'), edge('3', 'b', 'a')],
        },
        [{ path: 'edges.2', edgeId: '3', nodeId: 'a' }],
      ],
      [
        'an unknown node type',
        { nodes: [manual, invalidNode('x', 'email')], edges: [] },
        [{ path: 'nodes.1.data.type', nodeId: 'x' }],
      ],
      [
        'properties that do not fit the node type',
        {
          nodes: [
            manual,
            invalidNode('ag', 'agent'),
            invalidNode('ac', 'action', { action: 'no-separator', input: 'not an object' }),
            node('db', 'database', { databaseId: 'd', sql: '' }),
            node('dl', 'delay', { seconds: 0 }),
          ],
          edges: [],
        },
        [
          { path: 'nodes.1.data.properties.agentId', nodeId: 'ag' },
          { path: 'nodes.2.data.properties.action', nodeId: 'ac' },
          { path: 'nodes.2.data.properties.input', nodeId: 'ac' },
          { path: 'nodes.3.data.properties.sql', nodeId: 'db' },
          { path: 'nodes.4.data.properties.seconds', nodeId: 'dl' },
        ],
      ],
      [
        'a condition edge without a true or false handle',
        {
          nodes: [manual, nodes.condition('c', [{ left: '{{trigger}}', operator: 'is_empty' }]), wait('a')],
          edges: [edge('1', 't', 'c'), edge('2', 'c', 'a')],
        },
        [{ path: 'edges.1.sourceHandle', edgeId: '2', nodeId: 'c' }],
      ],
      [
        'a schedule trigger without a cron',
        { nodes: [nodes.trigger('s', { kind: 'schedule' })], edges: [] },
        [{ path: 'nodes.0.data.properties.cron', nodeId: 's' }],
      ],
      [
        'an invalid cron',
        { nodes: [nodes.schedule('s', '99 * * * *')], edges: [] },
        [{ path: 'nodes.0.data.properties.cron', nodeId: 's' }],
      ],
      [
        'a cron with seconds',
        { nodes: [nodes.schedule('s', '0 0 9 * * *')], edges: [] },
        [{ path: 'nodes.0.data.properties.cron', nodeId: 's' }],
      ],
      [
        `more than ${DIAGRAM_MAX_NODES} nodes`,
        {
          nodes: [manual, ...Array.from({ length: DIAGRAM_MAX_NODES }, (_, index) => wait(`w${index}`))],
          edges: [],
        },
        [{ path: 'nodes' }],
      ],
    ];

    it.each(cases)(
      'refuses %s with invalid_workflow naming it, and saves nothing',
      async (_label, diagram, issues) => {
        const workflow = await createDraft(org.api, projectId, { diagram });
        const response = await org.api.POST('/api/v1/workflows/{id}/publish', {
          params: { path: { id: workflow.id } },
        });
        expect(response.response.status).toBe(400);
        expect(response.error?.error.code).toBe('invalid_workflow');
        expect(response.error?.error.details?.issues).toHaveLength(issues.length);
        expect(response.error?.error.details?.issues).toEqual(
          expect.arrayContaining(issues.map((issue) => ({ ...issue, message: expect.any(String) }))),
        );
        for (const issue of response.error!.error.details!.issues!) {
          expect(issue.message.length).toBeGreaterThan(10);
          for (const id of [issue.nodeId, issue.edgeId].filter(Boolean)) expect(issue.message).toContain(id);
        }
        expect((await getWorkflow(org.api, workflow.id)).publishedVersion).toBeNull();
        expect(
          await org.api.listAll('/api/v1/workflows/{id}/versions', { path: { id: workflow.id } }),
        ).toEqual([]);
      },
    );

    it('keeps the live version when a later draft is invalid', async () => {
      const workflow = await createDraft(org.api, projectId, { diagram: VALID });
      await publishWorkflow(org.api, workflow.id);
      await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: workflow.id } },
        body: { diagram: { nodes: [], edges: [] } },
      });
      const refused = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflow.id } },
      });
      expect(refused.response.status).toBe(400);
      expect((await getWorkflow(org.api, workflow.id)).publishedVersion).toBe(1);
    });
  });

  describe('pause, resume and the next scheduled run', () => {
    it('pauses, resumes and publishes while paused', async () => {
      const workflow = await createDraft(org.api, projectId, {
        diagram: { nodes: [nodes.schedule('daily', '0 9 * * *')], edges: [] },
      });
      await publishWorkflow(org.api, workflow.id);
      const live = await org.api.GET('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } } });
      expect(live.data!.nextRunAt).toEqual(expect.any(String));

      const paused = await org.api.POST('/api/v1/workflows/{id}/pause', {
        params: { path: { id: workflow.id } },
      });
      expect(paused.response.status).toBe(200);
      expect(paused.data).toEqual({
        ...live.data,
        nextRunAt: undefined,
        pausedAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect('nextRunAt' in paused.data!).toBe(false);
      expect(Math.abs(Date.parse(paused.data!.pausedAt!) - Date.now())).toBeLessThan(60_000);
      expect(await getWorkflow(org.api, workflow.id)).toMatchObject({
        pausedAt: paused.data!.pausedAt,
        nextRunAt: null,
      });
      const again = await org.api.POST('/api/v1/workflows/{id}/pause', {
        params: { path: { id: workflow.id } },
      });
      expect(again.data!.pausedAt).toBe(paused.data!.pausedAt);

      // Publishing while paused makes the new version live and keeps the triggers off.
      await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: workflow.id } },
        body: {
          diagram: { nodes: [nodes.schedule('hourly', '15 * * * *')], edges: [] },
        },
      });
      const version = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflow.id } },
      });
      expect(version.data!.number).toBe(2);
      expect(await getWorkflow(org.api, workflow.id)).toMatchObject({
        publishedVersion: 2,
        pausedAt: paused.data!.pausedAt,
        nextRunAt: null,
      });

      const resumed = await org.api.POST('/api/v1/workflows/{id}/resume', {
        params: { path: { id: workflow.id } },
      });
      expect(resumed.response.status).toBe(200);
      expect(resumed.data).toMatchObject({ publishedVersion: 2, pausedAt: null });
      const next = (await getWorkflow(org.api, workflow.id)).nextRunAt!;
      // Version 2's hourly schedule, from now on: nothing from the paused time is owed.
      expect(new Date(next).getUTCMinutes()).toBe(15);
      expect(Date.parse(next)).toBeGreaterThan(Date.now());
      expect(Date.parse(next) - Date.now()).toBeLessThanOrEqual(3_600_000);
      const resumedAgain = await org.api.POST('/api/v1/workflows/{id}/resume', {
        params: { path: { id: workflow.id } },
      });
      expect(resumedAgain.data).toEqual(resumed.data);
    });

    it('pauses and resumes a workflow that was never published', async () => {
      const workflow = await createDraft(org.api, projectId, { diagram: VALID });
      expect(
        (await org.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: workflow.id } } })).data!
          .pausedAt,
      ).toEqual(expect.any(String));
      const version = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflow.id } },
      });
      expect(version.response.status).toBe(201);
      expect((await getWorkflow(org.api, workflow.id)).pausedAt).toEqual(expect.any(String));
      expect(
        (await org.api.POST('/api/v1/workflows/{id}/resume', { params: { path: { id: workflow.id } } })).data!
          .pausedAt,
      ).toBeNull();
    });

    it('has no next run without a schedule trigger, and reads the live version, not the draft', async () => {
      const workflow = await createDraft(org.api, projectId, { diagram: VALID });
      await publishWorkflow(org.api, workflow.id);
      expect((await getWorkflow(org.api, workflow.id)).nextRunAt).toBeNull();
      await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: workflow.id } },
        body: {
          diagram: { nodes: [nodes.schedule('s', '0 9 * * *')], edges: [] },
        },
      });
      expect((await getWorkflow(org.api, workflow.id)).nextRunAt).toBeNull();
    });

    async function nextRunAt(cron: string | string[], timeZone: string): Promise<string | null> {
      const crons = Array.isArray(cron) ? cron : [cron];
      const workflow = await createDraft(org.api, projectId, {
        diagram: { nodes: crons.map((one, index) => nodes.schedule(`s${index}`, one)), edges: [] },
      });
      const published = await org.api.POST('/api/v1/workflows/{id}/publish', {
        params: { path: { id: workflow.id } },
        body: { timeZone },
      });
      expect(published.response.status).toBe(201);
      return (await getWorkflow(org.api, workflow.id)).nextRunAt;
    }

    it('reads the schedule in the version time zone', async () => {
      const utc = await nextRunAt('0 9 * * *', 'UTC');
      expect(utc).toMatch(/T09:00:00\.000Z$/);
      expect(Date.parse(utc!) - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);

      const newYork = await nextRunAt('0 9 * * *', 'America/New_York');
      const at = new Date(newYork!);
      expect(
        new Intl.DateTimeFormat('en-US', {
          timeZone: 'America/New_York',
          hour: 'numeric',
          minute: 'numeric',
          hour12: false,
        }).format(at),
      ).toBe('09:00');
      expect(at.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
      expect(at.getTime()).toBeGreaterThan(Date.now());
    });

    it('takes the soonest of several schedule triggers', async () => {
      const soonest = await nextRunAt(['0 0 1 1 *', '*/5 * * * *'], 'UTC');
      expect(Date.parse(soonest!) - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    });

    it('computes nextRunAt in America/New_York across daylight-saving changes', async () => {
      // When New York next moves its clocks, found with Intl alone: 02:00 EST → 03:00 EDT (07:00 UTC)
      // in spring, and 02:00 EDT → 01:00 EST (06:00 UTC) in autumn.
      const spring = newYorkDate(nextTransition(-5));
      const fall = newYorkDate(nextTransition(-4));
      const dayAfterSpring = newYorkDate(new Date(nextTransition(-5).getTime() + 24 * 3_600_000));
      const dayBeforeSpring = newYorkDate(new Date(nextTransition(-5).getTime() - 24 * 3_600_000));

      // 09:00 is 14:00 UTC the day before the change and 13:00 UTC the day after.
      expect(
        await nextRunAt(`0 9 ${dayBeforeSpring.day} ${dayBeforeSpring.month} *`, 'America/New_York'),
      ).toBe(iso(dayBeforeSpring.year, dayBeforeSpring.month, dayBeforeSpring.day, '14:00:00'));
      expect(await nextRunAt(`0 9 ${dayAfterSpring.day} ${dayAfterSpring.month} *`, 'America/New_York')).toBe(
        iso(dayAfterSpring.year, dayAfterSpring.month, dayAfterSpring.day, '13:00:00'),
      );
      // 02:30 does not exist on the spring day: it runs at the first time after the gap, 03:00 EDT.
      expect(await nextRunAt(`30 2 ${spring.day} ${spring.month} *`, 'America/New_York')).toBe(
        iso(spring.year, spring.month, spring.day, '07:00:00'),
      );
      // 01:30 happens twice on the autumn day: it runs once, at the first, 01:30 EDT.
      expect(await nextRunAt(`30 1 ${fall.day} ${fall.month} *`, 'America/New_York')).toBe(
        iso(fall.year, fall.month, fall.day, '05:30:00'),
      );
    });
  });

  describe('delete', () => {
    it('deletes the workflow with its draft, versions and schedules', async () => {
      const workflow = await createDraft(org.api, projectId, {
        diagram: { nodes: [nodes.schedule('s', '0 9 * * *')], edges: [] },
      });
      await publishWorkflow(org.api, workflow.id);
      await publishWorkflow(org.api, workflow.id);
      const count = async (table: string) =>
        Number(
          (await db.query(`SELECT count(*) FROM workflow.${table} WHERE workflow_id = $1`, [workflow.id]))
            .rows[0].count,
        );
      expect([await count('versions'), await count('schedules')]).toEqual([2, 1]);

      const deleted = await org.api.DELETE('/api/v1/workflows/{id}', {
        params: { path: { id: workflow.id } },
      });
      expect({ status: deleted.response.status, body: deleted.data }).toMatchObject({
        status: 200,
        body: { deleted: true },
      });
      expect([await count('versions'), await count('schedules')]).toEqual([0, 0]);
      expect(
        await statusOf(org.api.GET('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } } })),
      ).toBe(404);
      expect(
        await statusOf(
          org.api.GET('/api/v1/workflows/{id}/versions', { params: { path: { id: workflow.id } } }),
        ),
      ).toBe(404);
      expect(
        await statusOf(org.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } } })),
      ).toBe(404);
      const listed = await org.api.listAll('/api/v1/projects/{projectId}/workflows', { path: { projectId } });
      expect(listed.map((item) => item.id)).not.toContain(workflow.id);
    });

    it('deletes the workflows of a deleted project', async () => {
      const project = await createProject(org.api);
      const workflows = [
        await createDraft(org.api, project, { diagram: VALID }),
        await createDraft(org.api, project),
      ];
      await publishWorkflow(org.api, workflows[0].id);
      const survivor = await createDraft(org.api, projectId);

      expect(
        await statusOf(org.api.DELETE('/api/v1/projects/{id}', { params: { path: { id: project } } })),
      ).toBe(200);
      for (const workflow of workflows) {
        expect(
          await statusOf(org.api.GET('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } } })),
        ).toBe(404);
      }
      expect(
        await statusOf(org.api.GET('/api/v1/workflows/{id}', { params: { path: { id: survivor.id } } })),
      ).toBe(200);
    });
  });

  it('keeps organizations apart on every route', async () => {
    const workflow = await createDraft(org.api, projectId, {
      diagram: { nodes: [nodes.schedule('s', '0 9 * * *')], edges: [] },
    });
    await publishWorkflow(org.api, workflow.id);
    const before = await getWorkflow(org.api, workflow.id);

    const attempts = [
      await other.api.GET('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } } }),
      await other.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id: workflow.id } },
        body: { name: 'stolen', diagram: { nodes: [], edges: [] } },
      }),
      await other.api.POST('/api/v1/workflows/{id}/publish', { params: { path: { id: workflow.id } } }),
      await other.api.POST('/api/v1/workflows/{id}/pause', { params: { path: { id: workflow.id } } }),
      await other.api.POST('/api/v1/workflows/{id}/resume', { params: { path: { id: workflow.id } } }),
      await other.api.GET('/api/v1/workflows/{id}/versions', { params: { path: { id: workflow.id } } }),
      await other.api.DELETE('/api/v1/workflows/{id}', { params: { path: { id: workflow.id } } }),
    ];
    for (const response of attempts) {
      expect(response.response.status).toBe(404);
      expect(response.error?.error.code).toBe('workflow_not_found');
    }
    for (const response of [
      await other.api.GET('/api/v1/projects/{projectId}/workflows', { params: { path: { projectId } } }),
      await other.api.POST('/api/v1/projects/{projectId}/workflows', {
        params: { path: { projectId } },
        body: { name: 'intruder' },
      }),
    ]) {
      expect(response.response.status).toBe(404);
      expect(response.error?.error.code).toBe('project_not_found');
    }
    expect(await getWorkflow(org.api, workflow.id)).toEqual(before);
    expect(
      (await org.api.listAll('/api/v1/projects/{projectId}/workflows', { path: { projectId } })).map(
        (item) => item.id,
      ),
    ).toContain(workflow.id);
  });

  it('refuses requests without a credential', async () => {
    const anonymous = new ApiClient(stack.baseUrl);
    for (const response of [
      await anonymous.GET('/api/v1/projects/{projectId}/workflows', { params: { path: { projectId } } }),
      await anonymous.POST('/api/v1/workflows/{id}/publish', { params: { path: { id: UNKNOWN_ID } } }),
    ]) {
      expect(response.response.status).toBe(401);
      expect(response.error?.error.code).toBe('unauthorized');
    }
  });

  it('publishes the diagram and each node type schema in the OpenAPI document', async () => {
    const document = (await new ApiClient(stack.baseUrl).raw.get<OpenApiDocument>('/docs/openapi.json')).body;
    expect(document.components.schemas).toMatchObject({
      Diagram: expect.objectContaining({ required: ['nodes', 'edges'] }),
      TriggerNodeProperties: NODE_TYPE_SCHEMAS.trigger,
      AgentNodeProperties: NODE_TYPE_SCHEMAS.agent,
      ActionNodeProperties: NODE_TYPE_SCHEMAS.action,
      ConditionNodeProperties: NODE_TYPE_SCHEMAS.condition,
      DatabaseNodeProperties: NODE_TYPE_SCHEMAS.database,
      DelayNodeProperties: NODE_TYPE_SCHEMAS.delay,
      WorkflowNodeProperties: NODE_TYPE_SCHEMAS.workflow,
      CodeNodeProperties: NODE_TYPE_SCHEMAS.code,
      LoopNodeProperties: NODE_TYPE_SCHEMAS.loop,
    });
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/projects/{projectId}/workflows',
        '/api/v1/workflows/{id}',
        '/api/v1/workflows/{id}/publish',
        '/api/v1/workflows/{id}/pause',
        '/api/v1/workflows/{id}/resume',
        '/api/v1/workflows/{id}/versions',
      ]),
    );
    expect(document.components.schemas.WorkflowDetailDto!.required).toEqual(
      expect.arrayContaining(['nextRunAt', 'diagram', 'publishedVersion', 'pausedAt']),
    );
  });
});
