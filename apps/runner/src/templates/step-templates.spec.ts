import { StepFailure } from '../executors/node-executor.js';
import { StepTemplates } from './step-templates.js';

const input = 'x'.repeat(100_000);
const scope = { input, outputs: new Map([['db', { rows: 'é'.repeat(500) }]]) };
const limits = { propertyMaxBytes: 256 * 1024, stepInputMaxBytes: 1024 * 1024 };

describe('StepTemplates', () => {
  it('fails a property past its limit with a message naming the node and the property', () => {
    const templates = new StepTemplates('c', scope, limits);
    expect(() => templates.render('{{trigger}}'.repeat(200), 'conditions[0].left')).toThrow(
      new StepFailure(
        'Node "c": conditions[0].left would be more than 262144 bytes (256 KiB) with its templates filled in; that is the most one property may be.',
      ),
    );
  });

  it("counts every property of the step against the step's input limit", () => {
    const templates = new StepTemplates('act', scope, limits);
    const twoCopies = '{{trigger}}'.repeat(2);
    // Five properties of 200,000 bytes fit in 1 MiB; the sixth does not, though it is under 256 KiB itself.
    for (let index = 0; index < 5; index += 1) {
      expect(templates.render(twoCopies, `input.p${index}`)).toHaveLength(200_000);
    }
    expect(() => templates.render(twoCopies, 'input.p5')).toThrow(
      'Node "act": its properties would be more than 1048576 bytes (1 MiB) together with their templates filled in (at input.p5); that is the most a step\'s input may be.',
    );
  });

  it('renders an object leaf by leaf, naming the leaf past the limit', () => {
    const rows = 'é'.repeat(500);
    const small = { ...limits, propertyMaxBytes: 1500 };
    expect(
      new StepTemplates('act', scope, small).renderDeep({ a: 'ok', b: ['{{nodes.db.rows}}'] }, 'input'),
    ).toEqual({ a: 'ok', b: [rows] });
    // A thousand é are 2,000 bytes of UTF-8, though 1,000 characters.
    expect(() =>
      new StepTemplates('act', scope, small).renderDeep(
        { a: 'ok', b: ['{{nodes.db.rows}}', '{{nodes.db.rows}}{{nodes.db.rows}}'] },
        'input',
      ),
    ).toThrow('Node "act": input.b[1] would be more than 1500 bytes with its templates filled in');
  });
});
