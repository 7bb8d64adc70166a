import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

import { RUN_INPUT_MAX_LENGTH } from './run-status.js';
import { isRunInputWithinLimit, runInputLength } from './run-input.js';
import { StartRunDto } from './start-run.dto.js';
import { StartRunRequest } from './start-run.request.js';

const emoji = '\u{1F600}';

describe('run input length', () => {
  it('counts Unicode code points: an emoji is one character, a lone surrogate is one too', () => {
    expect(runInputLength('')).toBe(0);
    expect(runInputLength('abc')).toBe(3);
    expect(runInputLength(`a${emoji}b`)).toBe(3);
    expect(runInputLength(emoji.repeat(4))).toBe(4);
    expect(runInputLength('\uD83D')).toBe(1);
    expect(runInputLength('\uDE00\uD83D')).toBe(2);
  });

  it('accepts the limit in code points even where UTF-16 units exceed it', () => {
    expect(isRunInputWithinLimit(emoji.repeat(RUN_INPUT_MAX_LENGTH))).toBe(true);
    expect(isRunInputWithinLimit(emoji.repeat(RUN_INPUT_MAX_LENGTH + 1))).toBe(false);
    expect(isRunInputWithinLimit('x'.repeat(RUN_INPUT_MAX_LENGTH))).toBe(true);
    expect(isRunInputWithinLimit('x'.repeat(RUN_INPUT_MAX_LENGTH + 1))).toBe(false);
  });

  it('is the same rule on the HTTP body and on the runner message', () => {
    const message = { workflowId: 'w', draft: false, trigger: 'api' };
    for (const [input, ok] of [
      [emoji.repeat(RUN_INPUT_MAX_LENGTH), true],
      [`${'x'.repeat(RUN_INPUT_MAX_LENGTH)}${emoji}`, false],
    ] as const) {
      const http = validateSync(plainToInstance(StartRunDto, { input }));
      const internal = validateSync(plainToInstance(StartRunRequest, { ...message, input }));
      expect({ http: http.length === 0, internal: internal.length === 0 }).toEqual({
        http: ok,
        internal: ok,
      });
    }
  });
});
