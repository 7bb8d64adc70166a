import type { RunStepDto, WorkflowRunDto } from '#contracts';

/** Room a reply leaves in its NATS message for the envelope (`{"ok":true,"data":…}`) and headers. */
export const ANSWER_HEADROOM_BYTES = 8 * 1024;

/** The most a note at the end of a cut text takes, as JSON content. */
const NOTE_MAX_BYTES = 64;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/** Applies `map` to every text of the answer that can be cut: the run's input, reply and error, each step's input, output fields and error. */
function mapTexts(run: WorkflowRunDto, map: (text: string) => string): WorkflowRunDto {
  const maybe = (text: string | null) => (text === null ? null : map(text));
  const step = (one: RunStepDto): RunStepDto => ({
    ...one,
    input: maybe(one.input),
    output:
      one.output === null
        ? null
        : Object.fromEntries(Object.entries(one.output).map(([field, value]) => [field, map(value)])),
    error: maybe(one.error),
  });
  return {
    ...run,
    input: map(run.input),
    reply: maybe(run.reply),
    error: maybe(run.error),
    steps: run.steps.map(step),
  };
}

/** The bytes one UTF-16 unit at `index` takes inside a JSON string, and how many units it spans. */
function jsonWidth(text: string, index: number): [bytes: number, units: number] {
  const code = text.charCodeAt(index);
  if (code === 0x22 || code === 0x5c) return [2, 1];
  if (code < 0x20) return [code === 8 || code === 9 || code === 10 || code === 12 || code === 13 ? 2 : 6, 1];
  if (code < 0x80) return [1, 1];
  if (code < 0x800) return [2, 1];
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(index + 1);
    return next >= 0xdc00 && next <= 0xdfff ? [4, 2] : [6, 1];
  }
  // A lone low surrogate is escaped like a control character.
  return code >= 0xdc00 && code <= 0xdfff ? [6, 1] : [3, 1];
}

/** The longest start of `text` whose JSON content is at most `maxBytes`, never half a surrogate pair. */
export function jsonPrefix(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const [width, units] = jsonWidth(text, end);
    if (bytes + width > maxBytes) break;
    bytes += width;
    end += units;
  }
  return text.slice(0, end);
}

/** `text` at most `capBytes` of JSON content long, followed by a note of its whole length. */
function cutTo(text: string, capBytes: number): string {
  return `${jsonPrefix(text, capBytes)} … [cut: ${text.length} characters in all]`;
}

/**
 * The run as one NATS message of `maxBytes` can carry it. Unchanged when its JSON fits, as it does for
 * every run recorded under the runner's limits on a NATS server with the deployment's 8 MiB
 * `max_payload`. Otherwise (a run recorded before the limits, a server with a smaller `max_payload`)
 * its longest texts are cut to one length, the largest that lets the answer fit, each ending with a
 * note of its whole length: the answer still comes at once, complete in every other field, instead of
 * a reply the message bus refuses and the caller waiting out its timeout. Null when even the run with
 * every text cut to nothing would not fit (its diagram alone is too large).
 */
export function fitRunAnswer(run: WorkflowRunDto, maxBytes: number): WorkflowRunDto | null {
  const total = jsonBytes(run);
  if (total <= maxBytes) return run;
  const sizes: number[] = [];
  mapTexts(run, (text) => {
    sizes.push(jsonBytes(text));
    return text;
  });
  const excess = total - maxBytes;
  // A text longer than `cap + NOTE_MAX_BYTES` becomes at most that long: what cutting at `cap` saves.
  const saved = (cap: number) =>
    sizes.reduce((sum, size) => sum + Math.max(0, size - cap - NOTE_MAX_BYTES), 0);
  if (saved(0) < excess) return null;
  let low = 0;
  let high = Math.max(...sizes);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (saved(middle) >= excess) low = middle;
    else high = middle - 1;
  }
  const cap = low;
  const fitted = mapTexts(run, (text) =>
    jsonBytes(text) > cap + NOTE_MAX_BYTES ? cutTo(text, Math.max(0, cap - 2)) : text,
  );
  return jsonBytes(fitted) <= maxBytes ? fitted : null;
}
