import {
  DIAGRAM_ID_MAX_LENGTH,
  DIAGRAM_MAX_BYTES,
  DIAGRAM_MAX_NODES,
  type Diagram,
  type DiagramEdge,
  type DiagramNode,
} from './diagram.js';
import { MATCHES_PATTERN_MAX_LENGTH } from './matches-pattern.js';
import { CODE_MAX_LENGTH, CODE_MEMORY_MAX_MB, CODE_TIMEOUT_MAX_MS } from './node-types.js';
import { errorWorkflowIdOf } from './node-type-schemas.js';
import { diagramShapeIssues, validateDiagram } from './validate-diagram.js';

const node = (id: string, type: string, properties: Record<string, unknown> = {}): DiagramNode => ({
  id,
  data: { type, properties },
});
const edge = (id: string, source: string, target: string, sourceHandle?: string | null): DiagramEdge => ({
  id,
  source,
  target,
  ...(sourceHandle === undefined ? {} : { sourceHandle }),
});
const manual = node('t', 'trigger', { kind: 'manual' });

function diagram(nodes: DiagramNode[], edges: DiagramEdge[] = []): Diagram {
  return { nodes, edges };
}

describe('validateDiagram', () => {
  it('accepts a diagram of every node type', () => {
    const valid = diagram(
      [
        node('t', 'trigger', { kind: 'schedule', cron: '0 9 * * 1-5', label: 'Weekdays' }),
        node('e', 'trigger', { kind: 'event', connectionId: 'c1', trigger: 'webhook/received', filter: {} }),
        node('a', 'agent', { agentId: 'ag', task: 'Summarize {{trigger}}' }),
        node('x', 'action', { action: 'http__request', input: { url: 'https://example.com' } }),
        node('c', 'condition', {
          conditions: [
            { left: '{{nodes.a.response}}', operator: 'matches', right: '^ok' },
            { left: '{{trigger.name}}', operator: 'is_empty' },
          ],
          match: 'any',
        }),
        node('d', 'database', { databaseId: 'db', sql: 'SELECT ?', params: ['{{trigger}}', 1, null] }),
        node('w', 'delay', { seconds: 60, retry: { attempts: 2, backoffSeconds: 5 } }),
        node('u', 'delay', { until: '{{trigger.at}}' }),
        node('f', 'workflow', { workflowId: 'wf', input: '{{nodes.a.response}}', wait: false }),
        node('g', 'workflow', { workflowId: 'wf' }),
        node('k', 'code', { code: 'return 1;', language: 'typescript', timeoutMs: 500, memoryMb: 16 }),
      ],
      [
        edge('1', 't', 'a'),
        edge('2', 'e', 'a'),
        edge('3', 'a', 'c'),
        edge('4', 'c', 'x', 'true'),
        edge('5', 'c', 'd', 'false'),
        edge('6', 'd', 'w'),
        edge('7', 'x', 'u', 'out'),
        edge('8', 'u', 'f'),
        edge('9', 'f', 'g'),
        edge('10', 'g', 'k'),
      ],
    );
    expect(validateDiagram(valid)).toEqual([]);
  });

  it('needs a trigger', () => {
    expect(validateDiagram(diagram([node('a', 'agent', { agentId: 'ag' })]))).toEqual([
      { path: 'nodes', message: expect.stringContaining('no trigger') },
    ]);
  });

  it('names duplicate node and edge ids', () => {
    const issues = validateDiagram(
      diagram(
        [manual, node('a', 'delay', { seconds: 1 }), node('a', 'delay', { seconds: 2 })],
        [edge('e', 't', 'a'), edge('e', 't', 'a')],
      ),
    );
    expect(issues).toEqual([
      { path: 'nodes.2.id', nodeId: 'a', message: expect.stringContaining('more than one node') },
      { path: 'edges.1.id', edgeId: 'e', message: expect.stringContaining('more than one edge') },
    ]);
  });

  it('names edges to missing nodes and into triggers', () => {
    const issues = validateDiagram(
      diagram(
        [manual, node('a', 'delay', { seconds: 1 })],
        [edge('in', 'a', 't'), edge('gone', 'a', 'nowhere'), edge('from', 'ghost', 'a')],
      ),
    );
    expect(issues).toEqual([
      { path: 'edges.0.target', edgeId: 'in', nodeId: 't', message: expect.stringContaining('incoming') },
      { path: 'edges.1.target', edgeId: 'gone', message: expect.stringContaining('"nowhere" is not a node') },
      { path: 'edges.2.source', edgeId: 'from', message: expect.stringContaining('"ghost" is not a node') },
    ]);
  });

  it('names the edge that closes each cycle', () => {
    const issues = validateDiagram(
      diagram(
        [manual, node('a', 'delay', { seconds: 1 }), node('b', 'delay', { seconds: 1 })],
        [edge('1', 't', 'a'), edge('2', 'a', 'b'), edge('3', 'b', 'a'), edge('self', 'b', 'b')],
      ),
    );
    expect(issues).toEqual([
      { path: 'edges.2', edgeId: '3', nodeId: 'a', message: expect.stringContaining('a → b → a') },
      { path: 'edges.3', edgeId: 'self', nodeId: 'b', message: expect.stringContaining('b → b') },
    ]);
  });

  it('does not mistake a diamond for a cycle', () => {
    const nodes = [manual, ...['a', 'b', 'c'].map((id) => node(id, 'delay', { seconds: 1 }))];
    const edges = [edge('1', 't', 'a'), edge('2', 't', 'b'), edge('3', 'a', 'c'), edge('4', 'b', 'c')];
    expect(validateDiagram(diagram(nodes, edges))).toEqual([]);
  });

  it(`handles the longest chain a diagram may have (${DIAGRAM_MAX_NODES} nodes), without recursion`, () => {
    const nodes = [
      manual,
      ...Array.from({ length: DIAGRAM_MAX_NODES - 1 }, (_, i) => node(`n${i}`, 'delay', { seconds: 1 })),
    ];
    const edges = nodes.slice(1).map((target, i) => edge(`e${i}`, nodes[i]!.id, target.id));
    expect(validateDiagram(diagram(nodes, edges))).toEqual([]);
  });

  it('names unknown node types', () => {
    expect(validateDiagram(diagram([manual, node('s', 'sms')]))).toEqual([
      { path: 'nodes.1.data.type', nodeId: 's', message: expect.stringContaining('unknown type "sms"') },
    ]);
  });

  it.each([
    ['trigger without kind', node('n', 'trigger', {}), 'properties.kind', 'is required'],
    [
      'trigger of an unknown kind',
      node('n', 'trigger', { kind: 'email' }),
      'properties.kind',
      'must be one of',
    ],
    ['schedule without cron', node('n', 'trigger', { kind: 'schedule' }), 'properties.cron', 'is required'],
    [
      'event without trigger',
      node('n', 'trigger', { kind: 'event', connectionId: 'c' }),
      'properties.trigger',
      'is required',
    ],
    [
      'event trigger not provider/name',
      node('n', 'trigger', { kind: 'event', connectionId: 'c', trigger: 'received' }),
      'properties.trigger',
      'must match pattern',
    ],
    ['agent without agentId', node('n', 'agent', { task: 'x' }), 'properties.agentId', 'is required'],
    ['action of a bad name', node('n', 'action', { action: 'request' }), 'properties.action', 'must match'],
    [
      'a blob param with more than the blob',
      node('n', 'database', { databaseId: 'd', sql: 'SELECT ?', params: [{ blob: 'AA==', size: 1 }] }),
      'properties.params.0',
      'must match a schema in anyOf',
    ],
    [
      'condition operator',
      node('n', 'condition', { conditions: [{ left: 'a', operator: 'like', right: 'b' }] }),
      'properties.conditions.0.operator',
      'must be one of',
    ],
    [
      'condition without right',
      node('n', 'condition', { conditions: [{ left: 'a', operator: 'equals' }] }),
      'properties.conditions.0.right',
      'is required',
    ],
    ['database without sql', node('n', 'database', { databaseId: 'd' }), 'properties.sql', 'is required'],
    ['delay with both', node('n', 'delay', { seconds: 1, until: 'x' }), 'properties', 'exactly one of'],
    ['delay too long', node('n', 'delay', { seconds: 2_592_001 }), 'properties.seconds', '<= 2592000'],
    ['code without code', node('n', 'code', { language: 'javascript' }), 'properties.code', 'is required'],
    [
      'code longer than CODE_MAX_LENGTH',
      node('n', 'code', { code: 'x'.repeat(CODE_MAX_LENGTH + 1) }),
      'properties.code',
      `must be at most ${CODE_MAX_LENGTH} characters`,
    ],
    [
      'code in another language',
      node('n', 'code', { code: '1', language: 'python' }),
      'properties.language',
      'must be one of',
    ],
    [
      'a code time cap past the most',
      node('n', 'code', { code: '1', timeoutMs: CODE_TIMEOUT_MAX_MS + 1 }),
      'properties.timeoutMs',
      `<= ${CODE_TIMEOUT_MAX_MS}`,
    ],
    [
      'a code memory cap past the most',
      node('n', 'code', { code: '1', memoryMb: CODE_MEMORY_MAX_MB + 1 }),
      'properties.memoryMb',
      `<= ${CODE_MEMORY_MAX_MB}`,
    ],
    [
      'workflow without workflowId',
      node('n', 'workflow', { input: 'x' }),
      'properties.workflowId',
      'is required',
    ],
    [
      'workflow with an empty id',
      node('n', 'workflow', { workflowId: '' }),
      'properties.workflowId',
      'fewer than 1',
    ],
    [
      'workflow waiting on "yes"',
      node('n', 'workflow', { workflowId: 'wf', wait: 'yes' }),
      'properties.wait',
      'must be boolean',
    ],
    [
      'workflow with an input that is not text',
      node('n', 'workflow', { workflowId: 'wf', input: { a: 1 } }),
      'properties.input',
      'must be string',
    ],
    [
      'retry out of range',
      node('n', 'delay', { seconds: 1, retry: { attempts: 11, backoffSeconds: 1 } }),
      'properties.retry.attempts',
      '<= 10',
    ],
  ])('names properties that do not fit the schema: %s', (_label, bad, field, message) => {
    const issues = validateDiagram(diagram([manual, bad]));
    expect(issues).toContainEqual({
      path: `nodes.1.data.${field}`,
      nodeId: 'n',
      message: expect.stringContaining(message),
    });
    for (const issue of issues) expect(issue.message).toMatch(/^node "n": /);
    expect(issues).toHaveLength(1);
  });

  it('keeps properties a node type does not name, at every level', () => {
    const extra = { ui: { collapsed: true } };
    const issues = validateDiagram(
      diagram([
        node('t', 'trigger', {
          kind: 'schedule',
          cron: '0 9 * * *',
          ...extra,
          retry: { attempts: 1, backoffSeconds: 1, ...extra },
        }),
        node('c', 'condition', { conditions: [{ left: 'a', operator: 'is_empty', ...extra }], ...extra }),
      ]),
    );
    expect(issues).toEqual([]);
  });

  it.each([
    ['0 9 * *', 'five fields'],
    ['0 9 * * * *', 'five fields'],
    ['61 * * * *', 'minute'],
    ['@daily', 'five fields'],
  ])('names an invalid cron %p', (cron, message) => {
    const issues = validateDiagram(diagram([node('s', 'trigger', { kind: 'schedule', cron })]));
    expect(issues).toEqual([
      { path: 'nodes.0.data.properties.cron', nodeId: 's', message: expect.stringContaining(message) },
    ]);
  });

  it('names a condition regular expression that does not compile and a literal time that is not one', () => {
    const issues = validateDiagram(
      diagram([
        manual,
        node('c', 'condition', { conditions: [{ left: 'a', operator: 'matches', right: '(' }] }),
        node('w', 'delay', { until: 'tomorrow' }),
      ]),
    );
    expect(issues).toEqual([
      { path: 'nodes.1.data.properties.conditions.0.right', nodeId: 'c', message: expect.any(String) },
      { path: 'nodes.2.data.properties.until', nodeId: 'w', message: expect.stringContaining('ISO 8601') },
    ]);
  });

  it.each([
    ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`'],
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
    ['/a/g', 'the flag "g" of "/a/g" is not supported'],
    ['a'.repeat(MATCHES_PATTERN_MAX_LENGTH + 1), `a pattern may have at most ${MATCHES_PATTERN_MAX_LENGTH}`],
  ])('names a matches pattern that RE2 will not run: %p', (right, message) => {
    const issues = validateDiagram(
      diagram([manual, node('c', 'condition', { conditions: [{ left: 'a', operator: 'matches', right }] })]),
    );
    expect(issues).toEqual([
      {
        path: 'nodes.1.data.properties.conditions.0.right',
        nodeId: 'c',
        message: expect.stringContaining(`node "c": condition 1 (matches): `),
      },
    ]);
    expect(issues[0]?.message).toContain(message);
  });

  it('accepts RE2 syntax that JavaScript lacks, and leaves templated patterns to the run', () => {
    const conditions = ['(?P<id>\\d+)', '(?i)order', '/^order/ims', '{{trigger.pattern}}(?='].map(
      (right) => ({ left: 'a', operator: 'matches', right }),
    );
    expect(validateDiagram(diagram([manual, node('c', 'condition', { conditions })]))).toEqual([]);
  });

  it.each([undefined, null, 'out', 'yes'])(
    'needs a true or false handle out of a condition, not %p',
    (handle) => {
      const issues = validateDiagram(
        diagram(
          [
            manual,
            node('c', 'condition', { conditions: [{ left: 'a', operator: 'is_not_empty' }] }),
            node('w', 'delay', { seconds: 1 }),
          ],
          [edge('1', 't', 'c'), edge('2', 'c', 'w', handle)],
        ),
      );
      expect(issues).toEqual([
        {
          path: 'edges.1.sourceHandle',
          edgeId: '2',
          nodeId: 'c',
          message: expect.stringContaining('"true" or "false"'),
        },
      ]);
    },
  );

  it('takes settings.errorWorkflowId as an id or null, and names anything else', () => {
    const withSettings = (settings: Record<string, unknown>): Diagram => ({ ...diagram([manual]), settings });
    expect(
      validateDiagram(withSettings({ errorWorkflowId: '0199d5e4-0000-7000-8000-000000000001' })),
    ).toEqual([]);
    expect(validateDiagram(withSettings({ errorWorkflowId: null, onError: 'rollback' }))).toEqual([]);
    expect(errorWorkflowIdOf(withSettings({ errorWorkflowId: 'w-2' }))).toBe('w-2');
    expect(errorWorkflowIdOf(withSettings({ errorWorkflowId: null }))).toBeNull();
    expect(errorWorkflowIdOf(diagram([manual]))).toBeNull();
    for (const [value, message] of [
      [42, 'diagram.errorWorkflowId must be string or null'],
      ['', 'diagram.errorWorkflowId must NOT have fewer than 1 characters'],
      [
        'w'.repeat(DIAGRAM_ID_MAX_LENGTH + 1),
        `diagram.errorWorkflowId must be at most ${DIAGRAM_ID_MAX_LENGTH} characters`,
      ],
    ] as const) {
      expect(validateDiagram(withSettings({ errorWorkflowId: value }))).toEqual([
        { path: 'settings.errorWorkflowId', message },
      ]);
    }
  });
});

describe('flow control settings', () => {
  const withSettings = (settings: Record<string, unknown>): Diagram => ({ ...diagram([manual]), settings });

  it('takes concurrency, throttle, debounce and priority as documented', () => {
    expect(
      validateDiagram(
        withSettings({
          concurrency: { limit: 5, key: '{{trigger.customerId}}' },
          throttle: { limit: 100, periodSeconds: 60 },
          debounce: { periodSeconds: 10, key: '{{trigger.recordId}}' },
          priority: '{{trigger.tier}}',
        }),
      ),
    ).toEqual([]);
  });

  it.each([
    ['settings.concurrency.limit', { concurrency: { limit: 0 } }],
    ['settings.concurrency.extra', { concurrency: { limit: 1, extra: true } }],
    ['settings.concurrency.limit', { concurrency: {} }],
    ['settings.throttle.periodSeconds', { throttle: { limit: 2, periodSeconds: 86_401 } }],
    ['settings.debounce.periodSeconds', { debounce: { periodSeconds: 1.5 } }],
    ['settings.debounce.key', { debounce: { periodSeconds: 5, key: 'k'.repeat(1_001) } }],
    ['settings.priority', { priority: '' }],
  ])('names %s when it is not as documented', (path, settings) => {
    expect(validateDiagram(withSettings(settings))).toEqual([{ path, message: expect.any(String) }]);
  });
});

describe('diagramShapeIssues', () => {
  it('accepts extra layout properties at every level', () => {
    expect(
      diagramShapeIssues({
        viewport: { x: 1 },
        nodes: [
          { id: 'a', position: { x: 0, y: 0 }, data: { type: 'anything', properties: {}, label: 'A' } },
        ],
        edges: [{ id: 'e', source: 'a', target: 'b', sourceHandle: null, animated: true }],
      }),
    ).toEqual([]);
  });

  it('names each problem with its path and the id when there is one', () => {
    const issues = diagramShapeIssues({
      nodes: [{ id: 'a', data: { properties: [] } }, { data: { type: 'x', properties: {} } }],
      edges: [{ id: 'e', source: 1, target: 'b', sourceHandle: 3 }],
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        { path: 'nodes.0.data.type', nodeId: 'a', message: 'diagram.nodes.0.data.type is required' },
        {
          path: 'nodes.0.data.properties',
          nodeId: 'a',
          message: 'diagram.nodes.0.data.properties must be object',
        },
        { path: 'nodes.1.id', message: 'diagram.nodes.1.id is required' },
        { path: 'edges.0.source', edgeId: 'e', message: 'diagram.edges.0.source must be string' },
        {
          path: 'edges.0.sourceHandle',
          edgeId: 'e',
          message: 'diagram.edges.0.sourceHandle must be string or null',
        },
      ]),
    );
    expect(issues).toHaveLength(5);
  });

  it(`takes node ids, edge ids and edge ends up to ${DIAGRAM_ID_MAX_LENGTH} characters`, () => {
    const longest = 'n'.repeat(DIAGRAM_ID_MAX_LENGTH);
    const edgeId = 'e'.repeat(DIAGRAM_ID_MAX_LENGTH);
    expect(
      validateDiagram(
        diagram([manual, node(longest, 'delay', { seconds: 1 })], [edge(edgeId, 't', longest)]),
      ),
    ).toEqual([]);
  });

  it('names each id longer than the limit by its path, without repeating the id', () => {
    const long = 'x'.repeat(DIAGRAM_ID_MAX_LENGTH + 1);
    const message = (path: string) => `diagram.${path} must be at most ${DIAGRAM_ID_MAX_LENGTH} characters`;
    const issues = diagramShapeIssues(
      diagram([manual, node(long, 'delay', { seconds: 1 })], [edge(long, 't', 'a'), edge('e', long, long)]),
    );
    expect(issues).toEqual([
      { path: 'nodes.1.id', message: message('nodes.1.id') },
      { path: 'edges.0.id', message: message('edges.0.id') },
      { path: 'edges.1.source', edgeId: 'e', message: message('edges.1.source') },
      { path: 'edges.1.target', edgeId: 'e', message: message('edges.1.target') },
    ]);
    // Publish and run check the shape first, so a saved draft with such an id cannot run either.
    expect(validateDiagram(diagram([manual, node(long, 'delay', { seconds: 1 })]))).toEqual([
      { path: 'nodes.1.id', message: message('nodes.1.id') },
    ]);
  });

  it(`refuses a diagram past ${DIAGRAM_MAX_NODES} nodes or ${DIAGRAM_MAX_BYTES} bytes, with that issue alone`, () => {
    const tooMany = diagram([
      manual,
      ...Array.from({ length: DIAGRAM_MAX_NODES }, (_, index) => node(`d${index}`, 'delay', { seconds: 1 })),
    ]);
    // Other problems (here a missing type) are not looked for: the size is answered alone.
    (tooMany.nodes[5] as { data: unknown }).data = {};
    expect(validateDiagram(tooMany)).toEqual([
      {
        path: 'nodes',
        message: `the diagram has ${DIAGRAM_MAX_NODES + 1} nodes; one that is published or run may have at most ${DIAGRAM_MAX_NODES}`,
      },
    ]);

    const padded = (bytes: number) => {
      const base = diagram([manual]);
      const padding = bytes - new TextEncoder().encode(JSON.stringify({ ...base, layout: '' })).length;
      // Extra layout properties count: the run stores and answers them too. é is two bytes.
      return { ...base, layout: `${'é'.repeat(Math.floor(padding / 2))}${'x'.repeat(padding % 2)}` };
    };
    expect(validateDiagram(padded(DIAGRAM_MAX_BYTES))).toEqual([]);
    expect(validateDiagram(padded(DIAGRAM_MAX_BYTES + 1))).toEqual([
      {
        path: '',
        message: `the diagram is ${DIAGRAM_MAX_BYTES + 1} bytes as JSON; one that is published or run may be at most ${DIAGRAM_MAX_BYTES} bytes (1 MiB)`,
      },
    ]);
  });

  it.each([null, [], 'x', {}, { nodes: [] }, { nodes: {}, edges: [] }])('refuses %p', (value) => {
    expect(diagramShapeIssues(value).length).toBeGreaterThan(0);
  });
});
