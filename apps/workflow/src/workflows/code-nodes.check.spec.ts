import type { Diagram, Principal } from '#contracts';

import { CodeNodesCheck } from './code-nodes.check.js';

const principal = { organizationId: 'o' } as Principal;

function diagramOf(...code: Array<Record<string, unknown>>): Diagram {
  return {
    nodes: [
      { id: 't', data: { type: 'trigger', properties: { kind: 'api' } } },
      ...code.map((properties, index) => ({ id: `code${index}`, data: { type: 'code', properties } })),
    ],
    edges: [],
  };
}

describe('CodeNodesCheck', () => {
  const check = new CodeNodesCheck();

  it('passes code that compiles, without running it', async () => {
    expect(
      await check.check(
        principal,
        diagramOf(
          { code: 'while (true) {}' },
          {
            code: 'const rows: Array<{ id: number }> = nodes.q.rows;\nreturn rows.length;',
            language: 'typescript',
          },
        ),
      ),
    ).toEqual([]);
  });

  it('names each node whose code does not compile, with the line', async () => {
    expect(
      await check.check(
        principal,
        diagramOf(
          { code: 'return 1;' },
          { code: 'const a = 1;\nconst b = ;' },
          { code: 'let n: number = 1;', language: 'javascript' },
          { code: '\nconst trigger = 1;' },
        ),
      ),
    ).toEqual([
      {
        nodeId: 'code1',
        path: 'nodes.2.data.properties.code',
        message: `node "code1": the code does not compile at line 2: unexpected token in expression: ';'`,
      },
      {
        nodeId: 'code2',
        path: 'nodes.3.data.properties.code',
        message: expect.stringMatching(/^node "code2": the code does not compile at line 1: /),
      },
      {
        // `trigger` is one of the function's parameters.
        nodeId: 'code3',
        path: 'nodes.4.data.properties.code',
        message: expect.stringMatching(/^node "code3": the code does not compile at line 2: /),
      },
    ]);
  });
});
