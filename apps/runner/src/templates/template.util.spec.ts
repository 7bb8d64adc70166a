import fc from 'fast-check';

import {
  pathSegments,
  renderDeep,
  renderTemplate,
  resolveExpression,
  type TemplateScope,
  layeredOutputs,
  TemplateTooLarge,
  toText,
} from './template.util.js';

/** Far above anything these texts render to: the cases below are about what, not how much. */
const ANY = 1024 * 1024;

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
    expect(renderTemplate('{{trigger}}', scope('plain text'), ANY)).toBe('plain text');
    expect(renderTemplate('Hi {{trigger.name}} ({{ trigger.n }})', json, ANY)).toBe('Hi Ada (3)');
    expect(renderTemplate('{{trigger.tags.1}}|{{trigger.tags[0]}}|{{trigger.user.id}}', json, ANY)).toBe(
      'b|a|7',
    );
    expect(renderTemplate('{{trigger.ok}}', json, ANY)).toBe('true');
  });

  it('renders objects and arrays as JSON text', () => {
    expect(renderTemplate('{{trigger.tags}}', json, ANY)).toBe('["a","b"]');
    expect(renderTemplate('{{trigger.user}}', json, ANY)).toBe('{"id":7}');
  });

  it('renders missing paths, null and unknown expressions empty', () => {
    expect(
      renderTemplate('[{{trigger.missing}}][{{trigger.none}}][{{trigger.tags.9}}][{{foo}}]', json, ANY),
    ).toBe('[][][][]');
    expect(renderTemplate('[{{trigger.name}}]', scope('not json'), ANY)).toBe('[]');
    expect(renderTemplate('[{{nodes.nobody.result}}][{{nodes.c.missing}}]', json, ANY)).toBe('[][]');
  });

  it('reads output fields of earlier steps, and paths inside fields that hold JSON', () => {
    expect(renderTemplate('{{nodes.c.result}}', json, ANY)).toBe('true');
    expect(renderTemplate('{{nodes.t.payload}}', json, ANY)).toBe('raw');
    expect(renderTemplate('{{nodes.db.main.rowCount}}', json, ANY)).toBe('1');
    expect(renderTemplate('{{nodes.db.main.rows.0.name}}', json, ANY)).toBe('x');
    expect(renderTemplate('{{nodes.c.result.deeper}}', json, ANY)).toBe('');
  });

  it("reads a loop iteration's item and index, and the steps it inherits beneath its own", () => {
    const iteration: TemplateScope = {
      input: '{"who":"Ada"}',
      loopNodeId: 'each',
      outputs: layeredOutputs(
        new Map<string, Record<string, string>>([
          ['each', { item: JSON.stringify({ id: 7, tags: ['x'] }), index: '3' }],
          ['c', { result: 'mine' }],
        ]),
        new Map<string, Record<string, string>>([
          ['c', { result: 'parent' }],
          ['outer', { item: 'plain', index: '1' }],
          ['db', { rows: '[{"n":1}]' }],
        ]),
      ),
    };
    expect(
      renderTemplate(
        '{{loop.index}} {{loop.item.id}} {{loop.item.tags.0}} {{loop.item}} {{nodes.outer.item}}',
        iteration,
        ANY,
      ),
    ).toBe('3 7 x {"id":7,"tags":["x"]} plain');
    expect(renderTemplate('{{nodes.c.result}} {{nodes.db.rows.0.n}} {{trigger.who}}', iteration, ANY)).toBe(
      'mine 1 Ada',
    );
    // Outside an iteration, `loop` names nothing.
    expect(renderTemplate('[{{loop.item}}][{{loop}}]', json, ANY)).toBe('[][]');
  });

  it('leaves text without expressions alone', () => {
    expect(renderTemplate('no braces { here }', json, ANY)).toBe('no braces { here }');
  });

  it('renders string leaves of nested values only', () => {
    expect(
      renderDeep(
        { a: '{{trigger.n}}', b: [1, '{{trigger.name}}', null], c: { blob: 'AA==' } },
        (template) => renderTemplate(template, json, ANY),
        'input',
      ),
    ).toEqual({
      a: '3',
      b: [1, 'Ada', null],
      c: { blob: 'AA==' },
    });
  });

  it('names each string leaf by its path for errors', () => {
    const paths: string[] = [];
    renderDeep(
      { body: 'x', items: ['y', { z: 'z' }], n: 1 },
      (template, path) => {
        paths.push(path);
        return template;
      },
      'input',
    );
    expect(paths).toEqual(['input.body', 'input.items[0]', 'input.items[1].z']);
  });

  it('splits paths', () => {
    expect(pathSegments('a.b[2].c')).toEqual(['a', 'b', '2', 'c']);
  });

  it('finds the longest node id that prefixes the expression, among many steps', () => {
    const outputs: Record<string, Record<string, string>> = { a: { x: 'short' }, 'a.b': { x: 'long' } };
    for (let index = 0; index < 1000; index += 1) outputs[`n${index}`] = { x: String(index) };
    const many = scope('', outputs);
    expect(renderTemplate('{{nodes.a.b.x}}|{{nodes.a.x}}|{{nodes.n999.x}}|{{nodes.a.b}}', many, ANY)).toBe(
      'long|short|999|',
    );
    // Ids are at most 200 characters: a longer dotted expression costs no more than that to look up.
    const longest = `${'a.'.repeat(99)}bc`;
    const dotted = scope('', { [longest]: { x: 'found' } });
    expect(renderTemplate(`{{nodes.${longest}.x}}`, dotted, ANY)).toBe('found');
    expect(
      renderTemplate(`{{nodes.${'.'.repeat(500_000)}}}|{{nodes.${'a.'.repeat(300_000)}}}`, dotted, ANY),
    ).toBe('|');
  });
});

describe('renderTemplate within a limit', () => {
  /** A scope that counts how often its input is read: once per `{{trigger}}` rendered. */
  function counting(input: string): { scope: TemplateScope; reads: () => number } {
    let reads = 0;
    return {
      scope: {
        get input() {
          reads += 1;
          return input;
        },
        outputs: new Map(),
      },
      reads: () => reads,
    };
  }

  it("stops at the first piece past the limit: the issue's 200 × {{trigger}} of a 100 KB input", () => {
    const { scope: probe, reads } = counting('x'.repeat(100_000));
    expect(() => renderTemplate('{{trigger}}'.repeat(200), probe, 256 * 1024)).toThrow(TemplateTooLarge);
    // 256 KiB hold two copies; the third passes the limit, and nothing after it is rendered.
    expect(reads()).toBe(3);
  });

  it('counts UTF-8 bytes, literal text included, and allows exactly the limit', () => {
    expect(renderTemplate('é{{trigger}}', scope('éé'), 6)).toBe('ééé');
    expect(() => renderTemplate('é{{trigger}}', scope('éé'), 5)).toThrow(TemplateTooLarge);
    expect(() => renderTemplate('a'.repeat(11), scope(''), 10)).toThrow(new TemplateTooLarge(10));
    expect(renderTemplate('', scope('x'), 0)).toBe('');
  });

  it('finds expressions exactly as /\\{\\{\\s*([^{}]*?)\\s*\\}\\}/g did', () => {
    const regex = /\{\{\s*([^{}]*?)\s*\}\}/g;
    const echo = scope('{"a":"T"}', { a: { b: 'B' } });
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            '{',
            '}',
            '{{',
            '}}',
            ' ',
            '\n',
            'trigger',
            ' trigger ',
            'nodes.a.b',
            '.',
            'a',
            'x',
          ),
          { maxLength: 30 },
        ),
        (parts) => {
          const template = parts.join('');
          const expected = template.replace(regex, (_match, expression: string) =>
            toText(resolveExpression(expression, echo)),
          );
          expect(renderTemplate(template, echo, ANY)).toBe(expected);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('scans in linear time where the regular expression took cubic time ({{ and blanks, no }})', () => {
    // The regular expression took 20 s on 5,000 blanks; a megabyte would not end within the test's timeout.
    const template = `{{${' '.repeat(1_000_000)}x`;
    expect(renderTemplate(template, scope(''), 2 * ANY)).toBe(template);
    const many = '{{ '.repeat(300_000);
    expect(renderTemplate(many, scope(''), 2 * ANY)).toBe(many);
  });
});
