import { pathSegments, renderDeep, renderTemplate, type TemplateScope } from './template.util.js';

function scope(input: string, outputs: Record<string, Record<string, string>> = {}): TemplateScope {
  return { input, outputs: new Map(Object.entries(outputs)) };
}

describe('renderTemplate', () => {
  const json = scope(
    JSON.stringify({ name: 'Ada', n: 3, ok: true, tags: ['a', 'b'], user: { id: 7 }, none: null }),
    {
      t: { payload: 'raw' },
      'db.main': { rows: JSON.stringify([{ id: 1, name: 'x' }]), rowCount: '1' },
      c: { result: 'true' },
    },
  );

  it('reads the raw input and JSON paths with array indexes', () => {
    expect(renderTemplate('{{trigger}}', scope('plain text'))).toBe('plain text');
    expect(renderTemplate('Hi {{trigger.name}} ({{ trigger.n }})', json)).toBe('Hi Ada (3)');
    expect(renderTemplate('{{trigger.tags.1}}|{{trigger.tags[0]}}|{{trigger.user.id}}', json)).toBe('b|a|7');
    expect(renderTemplate('{{trigger.ok}}', json)).toBe('true');
  });

  it('renders objects and arrays as JSON text', () => {
    expect(renderTemplate('{{trigger.tags}}', json)).toBe('["a","b"]');
    expect(renderTemplate('{{trigger.user}}', json)).toBe('{"id":7}');
  });

  it('renders missing paths, null and unknown expressions empty', () => {
    expect(renderTemplate('[{{trigger.missing}}][{{trigger.none}}][{{trigger.tags.9}}][{{foo}}]', json)).toBe(
      '[][][][]',
    );
    expect(renderTemplate('[{{trigger.name}}]', scope('not json'))).toBe('[]');
    expect(renderTemplate('[{{nodes.nobody.result}}][{{nodes.c.missing}}]', json)).toBe('[][]');
  });

  it('reads output fields of earlier steps, and paths inside fields that hold JSON', () => {
    expect(renderTemplate('{{nodes.c.result}}', json)).toBe('true');
    expect(renderTemplate('{{nodes.t.payload}}', json)).toBe('raw');
    expect(renderTemplate('{{nodes.db.main.rowCount}}', json)).toBe('1');
    expect(renderTemplate('{{nodes.db.main.rows.0.name}}', json)).toBe('x');
    expect(renderTemplate('{{nodes.c.result.deeper}}', json)).toBe('');
  });

  it('leaves text without expressions alone', () => {
    expect(renderTemplate('no braces { here }', json)).toBe('no braces { here }');
  });

  it('renders string leaves of nested values only', () => {
    expect(
      renderDeep({ a: '{{trigger.n}}', b: [1, '{{trigger.name}}', null], c: { blob: 'AA==' } }, json),
    ).toEqual({
      a: '3',
      b: [1, 'Ada', null],
      c: { blob: 'AA==' },
    });
  });

  it('splits paths', () => {
    expect(pathSegments('a.b[2].c')).toEqual(['a', 'b', '2', 'c']);
  });
});
