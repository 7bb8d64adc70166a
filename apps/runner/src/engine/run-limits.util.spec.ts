import {
  answerBytes,
  bytesText,
  cutError,
  keptBytes,
  outputBytes,
  STEP_ERROR_MAX_LENGTH,
} from './run-limits.util.js';

describe('run limits', () => {
  it('writes sizes in bytes, with the binary unit they are a whole number of', () => {
    expect(bytesText(262_144)).toBe('262144 bytes (256 KiB)');
    expect(bytesText(5 * 1024 * 1024)).toBe('5242880 bytes (5 MiB)');
    expect(bytesText(1500)).toBe('1500 bytes');
  });

  it('counts outputs in UTF-8 bytes, and what the answer carries as JSON bytes', () => {
    expect(outputBytes({ a: 'é', b: 'xy' })).toBe(4);
    // A control character is six bytes of JSON (\u0001), a quote two, a newline two.
    expect(answerBytes('\u0001"\n')).toBe(2 + 6 + 2 + 2);
    expect(answerBytes({ a: 'b' })).toBe('{"a":"b"}'.length);
    expect(answerBytes(null)).toBe(0);
  });

  it("counts a step's input, output and error, and its text again when the reply repeats it", () => {
    const step = { input: 'in', output: { result: 'true' }, error: null };
    const alone = answerBytes('in') + answerBytes({ result: 'true' });
    expect(keptBytes(step, null)).toBe(alone);
    expect(keptBytes(step, 'true')).toBe(alone + answerBytes('true') + 4);
    expect(keptBytes(step, '')).toBe(alone);
    expect(keptBytes({ input: null, output: null, error: 'failed' }, null)).toBe(answerBytes('failed'));
  });

  it('cuts a long error, saying how long it was, and never inside a surrogate pair', () => {
    expect(cutError('short')).toBe('short');
    const long = `${'a'.repeat(STEP_ERROR_MAX_LENGTH)}tail`;
    const cut = cutError(long);
    expect(cut.length).toBeLessThanOrEqual(STEP_ERROR_MAX_LENGTH);
    expect(cut).toMatch(/^a+ … \(cut: the message is 4004 characters\)$/);
    // With the one-character prefix, the cut would otherwise fall between the halves of a pair.
    const emoji = cutError(`x${'😀'.repeat(STEP_ERROR_MAX_LENGTH)}`);
    expect(emoji.length).toBeLessThanOrEqual(STEP_ERROR_MAX_LENGTH);
    expect(emoji).not.toMatch(/[\uD800-\uDBFF] …/);
  });
});
