import { DIAGRAM_ID_MAX_LENGTH, DIAGRAM_MAX_NODES, NODE_TYPE_SCHEMAS } from '#contracts';
import {
  ApiClient,
  createMember,
  createOrganization,
  type MemberFixture,
  type OrganizationFixture,
  runningStack,
} from '#testing';
import pg from 'pg';

const stack = runningStack();

type Properties = Record<string, unknown>;
const node = (id: string, type: string, properties: Properties = {}) => ({ id, data: { type, properties } });
const trigger = (id: string, properties: Properties = { kind: 'manual' }) => node(id, 'trigger', properties);
const schedule = (id: string, cron: string) => trigger(id, { kind: 'schedule', cron });
const edge = (id: string, source: string, target: string, sourceHandle?: string) => ({
  id,
  source,
  target,
  ...(sourceHandle === undefined ? {} : { sourceHandle }),
});
const diagramOf = (nodes: unknown[], edges: unknown[] = []) => ({ nodes, edges });
/** A diagram that publishes: a manual trigger followed by a delay. */
const VALID = diagramOf(
  [trigger('start'), node('wait', 'delay', { seconds: 5 })],
  [edge('start-wait', 'start', 'wait')],
);

const UNKNOWN_ID = '01a1fda9-ac47-73ca-aacb-8e38ce781792';

async function newProject(api: ApiClient): Promise<string> {
  const response = await api.post('/api/v1/projects', { name: `p-${Math.random().toString(36).slice(2)}` });
  expect(response.status).toBe(201);
  return response.body.id as string;
}

async function newWorkflow(api: ApiClient, projectId: string, body: Properties = {}): Promise<any> {
  const response = await api.post(`/api/v1/projects/${projectId}/workflows`, { name: 'Flow', ...body });
  expect(response.status).toBe(201);
  return response.body;
}

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
    projectId = await newProject(org.api);
    db = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db.end();
  });

  describe('drafts', () => {
    it('creates a workflow and answers every field of Workflow, WorkflowDetail and WorkflowSummary', async () => {
      const created = await org.api.post(`/api/v1/projects/${projectId}/workflows`, {
        name: 'Lead follow-up',
        description: 'Call back new leads',
        diagram: VALID,
      });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
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
      const id = created.body.id as string;

      const detail = await org.api.get(`/api/v1/workflows/${id}`);
      expect(detail.status).toBe(200);
      expect(detail.body).toEqual({ ...created.body, nextRunAt: null });

      const listed = await org.api.listAll(`/api/v1/projects/${projectId}/workflows`);
      const summary = listed.find((item) => item.id === id);
      expect(summary).toEqual({ ...created.body, diagram: undefined });
      expect(Object.keys(summary)).not.toContain('diagram');
    });

    it('starts with an empty diagram and a null description, and records the member who created it', async () => {
      const created = await newWorkflow(member.api, projectId, { name: 'Empty' });
      expect(created).toMatchObject({
        description: null,
        createdBy: member.userId,
        diagram: { nodes: [], edges: [] },
      });
    });

    it('saves drafts that could not be published yet', async () => {
      const unfinished = diagramOf(
        [node('a', 'not-a-type', { anything: true })],
        [edge('e', 'a', 'nowhere')],
      );
      const created = await newWorkflow(org.api, projectId, { diagram: unfinished });
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
      const created = await newWorkflow(org.api, projectId, { diagram });
      expect(JSON.stringify(created.diagram)).toBe(JSON.stringify(diagram));
      const read = await org.api.get(`/api/v1/workflows/${created.id}`);
      expect(JSON.stringify(read.body.diagram)).toBe(JSON.stringify(diagram));

      const moved = { ...diagram, viewport: { x: 1, y: 2, zoom: 2 }, extra: { deep: { deeper: [true] } } };
      const patched = await org.api.patch(`/api/v1/workflows/${created.id}`, { diagram: moved });
      expect(patched.status).toBe(200);
      expect(JSON.stringify(patched.body.diagram)).toBe(JSON.stringify(moved));
      expect(JSON.stringify((await org.api.get(`/api/v1/workflows/${created.id}`)).body.diagram)).toBe(
        JSON.stringify(moved),
      );
      expect((await org.api.post(`/api/v1/workflows/${created.id}/publish`)).status).toBe(201);
    });

    it.each([
      ['not an object', 'nodes', ['diagram']],
      ['null', null, ['diagram']],
      ['without nodes', { edges: [] }, ['diagram.nodes']],
      ['without edges', { nodes: [] }, ['diagram.edges']],
      ['nodes not an array', { nodes: {}, edges: [] }, ['diagram.nodes']],
      [
        'a node without id',
        diagramOf([{ data: { type: 'trigger', properties: {} } }]),
        ['diagram.nodes.0.id'],
      ],
      ['a node without data', diagramOf([{ id: 'a' }]), ['diagram.nodes.0.data']],
      [
        'data without type, properties an array',
        diagramOf([{ id: 'a', data: { properties: [] } }]),
        ['diagram.nodes.0.data.type', 'diagram.nodes.0.data.properties'],
      ],
      [
        'an edge without target, source a number, sourceHandle a number',
        diagramOf([trigger('a')], [{ id: 'e', source: 1, sourceHandle: 2 }]),
        ['diagram.edges.0.source', 'diagram.edges.0.target', 'diagram.edges.0.sourceHandle'],
      ],
      [
        `ids longer than ${DIAGRAM_ID_MAX_LENGTH} characters`,
        diagramOf(
          [trigger('a'), trigger('n'.repeat(DIAGRAM_ID_MAX_LENGTH + 1))],
          [
            edge('e'.repeat(DIAGRAM_ID_MAX_LENGTH + 1), 'a', 'b'),
            edge('f', 'a', 's'.repeat(DIAGRAM_ID_MAX_LENGTH + 1)),
          ],
        ),
        ['diagram.nodes.1.id', 'diagram.edges.0.id', 'diagram.edges.1.target'],
      ],
    ])('refuses a diagram %s on create and on PATCH, naming each problem', async (_label, diagram, paths) => {
      const created = await org.api.post(`/api/v1/projects/${projectId}/workflows`, { name: 'Bad', diagram });
      expect(created.status).toBe(400);
      expect(created.body.error.code).toBe('invalid_request');
      const createdPaths = created.body.error.details.issues.map((issue: { path: string }) => issue.path);
      expect(createdPaths).toEqual(expect.arrayContaining(paths));

      const existing = await newWorkflow(org.api, projectId, { diagram: VALID });
      const patched = await org.api.patch(`/api/v1/workflows/${existing.id}`, { diagram });
      expect(patched.status).toBe(400);
      expect(patched.body.error.code).toBe('invalid_request');
      expect(patched.body.error.details.issues.map((issue: { path: string }) => issue.path)).toEqual(
        expect.arrayContaining(paths),
      );
      expect((await org.api.get(`/api/v1/workflows/${existing.id}`)).body.diagram).toEqual(VALID);
    });

    it('names the node or edge of a shape problem', async () => {
      const response = await org.api.post(`/api/v1/projects/${projectId}/workflows`, {
        name: 'Bad',
        diagram: diagramOf([{ id: 'n1', data: { type: 7, properties: {} } }], [{ id: 'e1', source: 'n1' }]),
      });
      expect(response.body.error.details.issues).toEqual(
        expect.arrayContaining([
          { path: 'diagram.nodes.0.data.type', nodeId: 'n1', message: expect.any(String) },
          { path: 'diagram.edges.0.target', edgeId: 'e1', message: expect.any(String) },
        ]),
      );
    });

    it('validates name and description on create and PATCH', async () => {
      const bad = await org.api.post(`/api/v1/projects/${projectId}/workflows`, {
        name: 'n'.repeat(101),
        description: 'd'.repeat(501),
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details.issues.map((issue: { path: string }) => issue.path)).toEqual(
        expect.arrayContaining(['name', 'description']),
      );
      const missing = await org.api.post(`/api/v1/projects/${projectId}/workflows`, { description: 'x' });
      expect(missing.status).toBe(400);
      expect(missing.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(
        'name',
      );

      const existing = await newWorkflow(org.api, projectId);
      for (const body of [{ name: '' }, { name: null }, { description: 'd'.repeat(501) }]) {
        const response = await org.api.patch(`/api/v1/workflows/${existing.id}`, body);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('invalid_request');
      }
      const limits = await org.api.post(`/api/v1/projects/${projectId}/workflows`, {
        name: 'n'.repeat(100),
        description: 'd'.repeat(500),
      });
      expect(limits.status).toBe(201);
    });

    it('PATCH changes only the fields sent, and only the draft', async () => {
      const created = await newWorkflow(org.api, projectId, { description: 'first', diagram: VALID });
      expect((await org.api.post(`/api/v1/workflows/${created.id}/publish`)).status).toBe(201);

      const renamed = await org.api.patch(`/api/v1/workflows/${created.id}`, { name: 'Renamed' });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toMatchObject({
        name: 'Renamed',
        description: 'first',
        diagram: VALID,
        publishedVersion: 1,
      });
      expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));

      const draft = diagramOf(
        [trigger('start'), node('later', 'delay', { seconds: 60 })],
        [edge('x', 'start', 'later')],
      );
      const saved = await org.api.patch(`/api/v1/workflows/${created.id}`, {
        diagram: draft,
        description: null,
      });
      expect(saved.body).toMatchObject({
        name: 'Renamed',
        description: null,
        diagram: draft,
        publishedVersion: 1,
      });
      expect((await org.api.patch(`/api/v1/workflows/${created.id}`, {})).body).toEqual(saved.body);

      const versions = await org.api.listAll(`/api/v1/workflows/${created.id}/versions`);
      expect(versions.map((version) => version.number)).toEqual([1]);
      // The draft is what publishes next.
      const second = await org.api.post(`/api/v1/workflows/${created.id}/publish`);
      expect(second.body.number).toBe(2);
    });

    it('pages workflows of a project newest first', async () => {
      const project = await newProject(org.api);
      for (const name of ['w0', 'w1', 'w2']) await newWorkflow(org.api, project, { name });
      const first = await org.api.get(`/api/v1/projects/${project}/workflows?limit=2`);
      expect(first.body.data.map((item: { name: string }) => item.name)).toEqual(['w2', 'w1']);
      const second = await org.api.get(
        `/api/v1/projects/${project}/workflows?limit=2&cursor=${first.body.nextCursor}`,
      );
      expect(second.body).toEqual({ data: [expect.objectContaining({ name: 'w0' })], nextCursor: null });
      for (const query of ['limit=0', 'limit=101', 'cursor=nope']) {
        const response = await org.api.get(`/api/v1/projects/${project}/workflows?${query}`);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('invalid_request');
      }
    });

    it('answers project_not_found for a missing, malformed or foreign project', async () => {
      const foreign = await newProject(other.api);
      for (const id of [UNKNOWN_ID, 'not-an-id', foreign]) {
        const list = await org.api.get(`/api/v1/projects/${id}/workflows`);
        expect(list.status).toBe(404);
        expect(list.body.error.code).toBe('project_not_found');
        const create = await org.api.post(`/api/v1/projects/${id}/workflows`, { name: 'x' });
        expect(create.status).toBe(404);
        expect(create.body.error.code).toBe('project_not_found');
      }
      expect(await other.api.listAll(`/api/v1/projects/${foreign}/workflows`)).toEqual([]);
    });

    it('answers workflow_not_found on every route for an unknown or malformed id', async () => {
      for (const id of [UNKNOWN_ID, 'not-an-id']) {
        const responses = [
          await org.api.get(`/api/v1/workflows/${id}`),
          await org.api.patch(`/api/v1/workflows/${id}`, { name: 'x' }),
          await org.api.delete(`/api/v1/workflows/${id}`),
          await org.api.post(`/api/v1/workflows/${id}/publish`),
          await org.api.post(`/api/v1/workflows/${id}/pause`),
          await org.api.post(`/api/v1/workflows/${id}/resume`),
          await org.api.get(`/api/v1/workflows/${id}/versions`),
        ];
        for (const response of responses) {
          expect(response.status).toBe(404);
          expect(response.body.error).toEqual({ code: 'workflow_not_found', message: expect.any(String) });
        }
      }
    });
  });

  describe('publish', () => {
    it('freezes the draft as version 1, 2, 3 and lists versions newest first', async () => {
      const workflow = await newWorkflow(org.api, projectId, { diagram: VALID });
      const first = await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        id: expect.any(String),
        workflowId: workflow.id,
        number: 1,
        timeZone: 'UTC',
        publishedBy: null,
        publishedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const second = await member.api.post(`/api/v1/workflows/${workflow.id}/publish`, {
        timeZone: 'Europe/Paris',
      });
      expect(second.body).toMatchObject({ number: 2, timeZone: 'Europe/Paris', publishedBy: member.userId });
      const third = await org.api.post(`/api/v1/workflows/${workflow.id}/publish`, {});
      expect(third.body).toMatchObject({ number: 3, timeZone: 'UTC' });

      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.publishedVersion).toBe(3);
      const page = await org.api.get(`/api/v1/workflows/${workflow.id}/versions`);
      expect(page.body).toEqual({ data: [third.body, second.body, first.body], nextCursor: null });
      const one = await org.api.get(`/api/v1/workflows/${workflow.id}/versions?limit=1`);
      expect(one.body.data).toEqual([third.body]);
      const rest = await org.api.get(
        `/api/v1/workflows/${workflow.id}/versions?limit=2&cursor=${one.body.nextCursor}`,
      );
      expect(rest.body).toEqual({ data: [second.body, first.body], nextCursor: null });
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}/versions?limit=0`)).status).toBe(400);
    });

    it('gives concurrent publishes consecutive numbers, never the same one twice', async () => {
      const workflow = await newWorkflow(org.api, projectId, { diagram: VALID });
      const publishes = await Promise.all(
        Array.from({ length: 8 }, () => org.api.post(`/api/v1/workflows/${workflow.id}/publish`)),
      );
      expect(publishes.map((response) => response.status)).toEqual(Array(8).fill(201));
      const numbers = publishes.map((response) => response.body.number as number).sort((a, b) => a - b);
      expect(numbers).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const listed = await org.api.listAll(`/api/v1/workflows/${workflow.id}/versions`, 3);
      expect(listed.map((version) => version.number)).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.publishedVersion).toBe(8);
    });

    it.each([
      ['an unknown zone', 'Mars/Olympus_Mons'],
      ['a UTC offset', '+02:00'],
      ['an empty string', ''],
      ['a number', 5],
      ['null', null],
    ])('refuses %s as timeZone with invalid_request and saves nothing', async (_label, timeZone) => {
      const workflow = await newWorkflow(org.api, projectId, { diagram: VALID });
      const response = await org.api.post(`/api/v1/workflows/${workflow.id}/publish`, { timeZone });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('invalid_request');
      expect(response.body.error.details.issues.map((issue: { path: string }) => issue.path)).toContain(
        'timeZone',
      );
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.publishedVersion).toBeNull();
    });

    it('records the zone database spelling of a time zone written in another case', async () => {
      const workflow = await newWorkflow(org.api, projectId, { diagram: VALID });
      const response = await org.api.post(`/api/v1/workflows/${workflow.id}/publish`, {
        timeZone: 'america/new_york',
      });
      expect(response.body.timeZone).toBe('America/New_York');
    });

    const manual = trigger('t');
    const wait = (id: string) => node(id, 'delay', { seconds: 1 });
    const cases: Array<[string, ReturnType<typeof diagramOf>, Array<Record<string, unknown>>]> = [
      ['no trigger', diagramOf([wait('a')]), [{ path: 'nodes' }]],
      [
        'duplicate node ids',
        diagramOf([manual, wait('a'), wait('a')]),
        [{ path: 'nodes.2.id', nodeId: 'a' }],
      ],
      [
        'duplicate edge ids',
        diagramOf([manual, wait('a'), wait('b')], [edge('e', 't', 'a'), edge('e', 't', 'b')]),
        [{ path: 'edges.1.id', edgeId: 'e' }],
      ],
      [
        'an edge to a missing node',
        diagramOf([manual], [edge('dangling', 't', 'ghost')]),
        [{ path: 'edges.0.target', edgeId: 'dangling' }],
      ],
      [
        'an edge from a missing node',
        diagramOf([manual, wait('a')], [edge('orphan', 'ghost', 'a')]),
        [{ path: 'edges.0.source', edgeId: 'orphan' }],
      ],
      [
        'an edge into a trigger',
        diagramOf([manual, wait('a')], [edge('back', 'a', 't')]),
        [{ path: 'edges.0.target', edgeId: 'back', nodeId: 't' }],
      ],
      [
        'a cycle',
        diagramOf(
          [manual, wait('a'), wait('b')],
          [edge('1', 't', 'a'), edge('2', 'a', 'b'), edge('3', 'b', 'a')],
        ),
        [{ path: 'edges.2', edgeId: '3', nodeId: 'a' }],
      ],
      [
        'an unknown node type',
        diagramOf([manual, node('x', 'email')]),
        [{ path: 'nodes.1.data.type', nodeId: 'x' }],
      ],
      [
        'properties that do not fit the node type',
        diagramOf([
          manual,
          node('ag', 'agent', {}),
          node('ac', 'action', { action: 'no-separator', input: 'not an object' }),
          node('db', 'database', { databaseId: 'd', sql: '' }),
          node('dl', 'delay', { seconds: 0 }),
        ]),
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
        diagramOf(
          [
            manual,
            node('c', 'condition', { conditions: [{ left: '{{trigger}}', operator: 'is_empty' }] }),
            wait('a'),
          ],
          [edge('1', 't', 'c'), edge('2', 'c', 'a')],
        ),
        [{ path: 'edges.1.sourceHandle', edgeId: '2', nodeId: 'c' }],
      ],
      [
        'a schedule trigger without a cron',
        diagramOf([trigger('s', { kind: 'schedule' })]),
        [{ path: 'nodes.0.data.properties.cron', nodeId: 's' }],
      ],
      [
        'an invalid cron',
        diagramOf([schedule('s', '99 * * * *')]),
        [{ path: 'nodes.0.data.properties.cron', nodeId: 's' }],
      ],
      [
        'a cron with seconds',
        diagramOf([schedule('s', '0 0 9 * * *')]),
        [{ path: 'nodes.0.data.properties.cron', nodeId: 's' }],
      ],
      [
        `more than ${DIAGRAM_MAX_NODES} nodes`,
        diagramOf([manual, ...Array.from({ length: DIAGRAM_MAX_NODES }, (_, index) => wait(`w${index}`))]),
        [{ path: 'nodes' }],
      ],
    ];

    it.each(cases)(
      'refuses %s with invalid_workflow naming it, and saves nothing',
      async (_label, diagram, issues) => {
        const workflow = await newWorkflow(org.api, projectId, { diagram });
        const response = await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
        expect(response.status).toBe(400);
        expect(response.body.error.code).toBe('invalid_workflow');
        expect(response.body.error.details.issues).toHaveLength(issues.length);
        expect(response.body.error.details.issues).toEqual(
          expect.arrayContaining(issues.map((issue) => ({ ...issue, message: expect.any(String) }))),
        );
        for (const issue of response.body.error.details.issues) {
          expect(issue.message.length).toBeGreaterThan(10);
          for (const id of [issue.nodeId, issue.edgeId].filter(Boolean)) expect(issue.message).toContain(id);
        }
        expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.publishedVersion).toBeNull();
        expect(await org.api.listAll(`/api/v1/workflows/${workflow.id}/versions`)).toEqual([]);
      },
    );

    it('keeps the live version when a later draft is invalid', async () => {
      const workflow = await newWorkflow(org.api, projectId, { diagram: VALID });
      await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
      await org.api.patch(`/api/v1/workflows/${workflow.id}`, { diagram: diagramOf([]) });
      expect((await org.api.post(`/api/v1/workflows/${workflow.id}/publish`)).status).toBe(400);
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.publishedVersion).toBe(1);
    });
  });

  describe('pause, resume and the next scheduled run', () => {
    it('pauses, resumes and publishes while paused', async () => {
      const workflow = await newWorkflow(org.api, projectId, {
        diagram: diagramOf([schedule('daily', '0 9 * * *')]),
      });
      expect((await org.api.post(`/api/v1/workflows/${workflow.id}/publish`)).status).toBe(201);
      const live = await org.api.get(`/api/v1/workflows/${workflow.id}`);
      expect(live.body.nextRunAt).toEqual(expect.any(String));

      const paused = await org.api.post(`/api/v1/workflows/${workflow.id}/pause`);
      expect(paused.status).toBe(200);
      expect(paused.body).toEqual({
        ...live.body,
        nextRunAt: undefined,
        pausedAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect('nextRunAt' in paused.body).toBe(false);
      expect(Math.abs(Date.parse(paused.body.pausedAt) - Date.now())).toBeLessThan(60_000);
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body).toMatchObject({
        pausedAt: paused.body.pausedAt,
        nextRunAt: null,
      });
      const again = await org.api.post(`/api/v1/workflows/${workflow.id}/pause`);
      expect(again.body.pausedAt).toBe(paused.body.pausedAt);

      // Publishing while paused makes the new version live and keeps the triggers off.
      await org.api.patch(`/api/v1/workflows/${workflow.id}`, {
        diagram: diagramOf([schedule('hourly', '15 * * * *')]),
      });
      const version = await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
      expect(version.body.number).toBe(2);
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body).toMatchObject({
        publishedVersion: 2,
        pausedAt: paused.body.pausedAt,
        nextRunAt: null,
      });

      const resumed = await org.api.post(`/api/v1/workflows/${workflow.id}/resume`);
      expect(resumed.status).toBe(200);
      expect(resumed.body).toMatchObject({ publishedVersion: 2, pausedAt: null });
      const next = (await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.nextRunAt as string;
      // Version 2's hourly schedule, from now on: nothing from the paused time is owed.
      expect(new Date(next).getUTCMinutes()).toBe(15);
      expect(Date.parse(next)).toBeGreaterThan(Date.now());
      expect(Date.parse(next) - Date.now()).toBeLessThanOrEqual(3_600_000);
      const resumedAgain = await org.api.post(`/api/v1/workflows/${workflow.id}/resume`);
      expect(resumedAgain.body).toEqual(resumed.body);
    });

    it('pauses and resumes a workflow that was never published', async () => {
      const workflow = await newWorkflow(org.api, projectId, { diagram: VALID });
      expect((await org.api.post(`/api/v1/workflows/${workflow.id}/pause`)).body.pausedAt).toEqual(
        expect.any(String),
      );
      const version = await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
      expect(version.status).toBe(201);
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.pausedAt).toEqual(
        expect.any(String),
      );
      expect((await org.api.post(`/api/v1/workflows/${workflow.id}/resume`)).body.pausedAt).toBeNull();
    });

    it('has no next run without a schedule trigger, and reads the live version, not the draft', async () => {
      const workflow = await newWorkflow(org.api, projectId, { diagram: VALID });
      await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.nextRunAt).toBeNull();
      await org.api.patch(`/api/v1/workflows/${workflow.id}`, {
        diagram: diagramOf([schedule('s', '0 9 * * *')]),
      });
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.nextRunAt).toBeNull();
    });

    async function nextRunAt(cron: string | string[], timeZone: string): Promise<string | null> {
      const crons = Array.isArray(cron) ? cron : [cron];
      const workflow = await newWorkflow(org.api, projectId, {
        diagram: diagramOf(crons.map((one, index) => schedule(`s${index}`, one))),
      });
      const published = await org.api.post(`/api/v1/workflows/${workflow.id}/publish`, { timeZone });
      expect(published.status).toBe(201);
      return (await org.api.get(`/api/v1/workflows/${workflow.id}`)).body.nextRunAt as string | null;
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
      const workflow = await newWorkflow(org.api, projectId, {
        diagram: diagramOf([schedule('s', '0 9 * * *')]),
      });
      await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
      await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
      const count = async (table: string) =>
        Number(
          (await db.query(`SELECT count(*) FROM workflow.${table} WHERE workflow_id = $1`, [workflow.id]))
            .rows[0].count,
        );
      expect([await count('versions'), await count('schedules')]).toEqual([2, 1]);

      expect(await org.api.delete(`/api/v1/workflows/${workflow.id}`)).toMatchObject({
        status: 200,
        body: { deleted: true },
      });
      expect([await count('versions'), await count('schedules')]).toEqual([0, 0]);
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).status).toBe(404);
      expect((await org.api.get(`/api/v1/workflows/${workflow.id}/versions`)).status).toBe(404);
      expect((await org.api.delete(`/api/v1/workflows/${workflow.id}`)).status).toBe(404);
      const listed = await org.api.listAll(`/api/v1/projects/${projectId}/workflows`);
      expect(listed.map((item) => item.id)).not.toContain(workflow.id);
    });

    it('deletes the workflows of a deleted project', async () => {
      const project = await newProject(org.api);
      const workflows = [
        await newWorkflow(org.api, project, { diagram: VALID }),
        await newWorkflow(org.api, project),
      ];
      await org.api.post(`/api/v1/workflows/${workflows[0].id}/publish`);
      const survivor = await newWorkflow(org.api, projectId);

      expect((await org.api.delete(`/api/v1/projects/${project}`)).status).toBe(200);
      for (const workflow of workflows) {
        expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).status).toBe(404);
      }
      expect((await org.api.get(`/api/v1/workflows/${survivor.id}`)).status).toBe(200);
    });
  });

  it('keeps organizations apart on every route', async () => {
    const workflow = await newWorkflow(org.api, projectId, {
      diagram: diagramOf([schedule('s', '0 9 * * *')]),
    });
    await org.api.post(`/api/v1/workflows/${workflow.id}/publish`);
    const before = (await org.api.get(`/api/v1/workflows/${workflow.id}`)).body;

    const attempts = [
      await other.api.get(`/api/v1/workflows/${workflow.id}`),
      await other.api.patch(`/api/v1/workflows/${workflow.id}`, { name: 'stolen', diagram: diagramOf([]) }),
      await other.api.post(`/api/v1/workflows/${workflow.id}/publish`),
      await other.api.post(`/api/v1/workflows/${workflow.id}/pause`),
      await other.api.post(`/api/v1/workflows/${workflow.id}/resume`),
      await other.api.get(`/api/v1/workflows/${workflow.id}/versions`),
      await other.api.delete(`/api/v1/workflows/${workflow.id}`),
    ];
    for (const response of attempts) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('workflow_not_found');
    }
    for (const response of [
      await other.api.get(`/api/v1/projects/${projectId}/workflows`),
      await other.api.post(`/api/v1/projects/${projectId}/workflows`, { name: 'intruder' }),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('project_not_found');
    }
    expect((await org.api.get(`/api/v1/workflows/${workflow.id}`)).body).toEqual(before);
    expect(
      (await org.api.listAll(`/api/v1/projects/${projectId}/workflows`)).map((item) => item.id),
    ).toContain(workflow.id);
  });

  it('refuses requests without a credential', async () => {
    const anonymous = new ApiClient(stack.baseUrl);
    for (const response of [
      await anonymous.get(`/api/v1/projects/${projectId}/workflows`),
      await anonymous.post(`/api/v1/workflows/${UNKNOWN_ID}/publish`),
    ]) {
      expect(response.status).toBe(401);
      expect(response.body.error.code).toBe('unauthorized');
    }
  });

  it('publishes the diagram and each node type schema in the OpenAPI document', async () => {
    const document = (await new ApiClient(stack.baseUrl).get('/docs/openapi.json')).body;
    expect(document.components.schemas).toMatchObject({
      Diagram: expect.objectContaining({ required: ['nodes', 'edges'] }),
      TriggerNodeProperties: NODE_TYPE_SCHEMAS.trigger,
      AgentNodeProperties: NODE_TYPE_SCHEMAS.agent,
      ActionNodeProperties: NODE_TYPE_SCHEMAS.action,
      ConditionNodeProperties: NODE_TYPE_SCHEMAS.condition,
      DatabaseNodeProperties: NODE_TYPE_SCHEMAS.database,
      DelayNodeProperties: NODE_TYPE_SCHEMAS.delay,
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
    expect(document.components.schemas.WorkflowDetailDto.required).toEqual(
      expect.arrayContaining(['nextRunAt', 'diagram', 'publishedVersion', 'pausedAt']),
    );
  });
});
