/** Builders for workflow diagrams in tests: the node types of DESIGN.md, section 3. */
export interface TestNode {
  id: string;
  data: { type: string; properties: Record<string, unknown> };
}

export interface TestEdge {
  id: string;
  source: string;
  target: string;
  sourceHandle?: string;
}

export interface TestDiagram {
  nodes: TestNode[];
  edges: TestEdge[];
}

const node = (id: string, type: string, properties: Record<string, unknown>): TestNode => ({
  id,
  data: { type, properties },
});

export const nodes = {
  trigger: (id: string, properties: Record<string, unknown> = { kind: 'api' }) =>
    node(id, 'trigger', properties),
  schedule: (id: string, cron: string) => node(id, 'trigger', { kind: 'schedule', cron }),
  condition: (
    id: string,
    conditions: Array<{ left: string; operator: string; right?: string }>,
    extra: Record<string, unknown> = {},
  ) => node(id, 'condition', { conditions, ...extra }),
  /** A condition that always holds. */
  alwaysTrue: (id: string) =>
    node(id, 'condition', { conditions: [{ left: '1', operator: 'equals', right: '1' }] }),
  delay: (id: string, seconds: number) => node(id, 'delay', { seconds }),
  /** One SQL statement on one of the organization's databases. */
  database: (id: string, databaseId: string, sql: string, params: unknown[] = []) =>
    node(id, 'database', { databaseId, sql, params }),
  /** An App event trigger on a webhook connection. */
  webhook: (id: string, connectionId: string, filter?: Record<string, unknown>) =>
    node(id, 'trigger', {
      kind: 'event',
      connectionId,
      trigger: 'webhook/received',
      ...(filter === undefined ? {} : { filter }),
    }),
  action: (
    id: string,
    action: string,
    input: Record<string, unknown>,
    extra: { connectionId?: string; retry?: { attempts: number; backoffSeconds: number } } = {},
  ) => node(id, 'action', { action, input, ...extra }),
};

/**
 * The nodes joined one after another; an edge out of a condition leaves by its `true` handle.
 */
export function chainOf(...chained: TestNode[]): TestDiagram {
  const edges = chained.slice(1).map((target, index) => {
    const source = chained[index]!;
    return {
      id: `e${index}`,
      source: source.id,
      target: target.id,
      ...(source.data.type === 'condition' ? { sourceHandle: 'true' } : {}),
    };
  });
  return { nodes: chained, edges };
}

/**
 * The template probe of issue 23: a 2.8 KB diagram whose condition repeats the whole input
 * (`{{trigger}}`) 200 times in one property. With a 100 KB input it once stored a 20 MB step input.
 */
export function templateProbe(copies = 200): TestDiagram {
  return chainOf(
    nodes.trigger('t'),
    nodes.condition('c', [{ left: '{{trigger}}'.repeat(copies), operator: 'is_not_empty' }]),
  );
}
