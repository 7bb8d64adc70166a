import { LRUCache } from 'lru-cache';
import { RE2JS, RE2JSException } from 're2js';

/**
 * The longest pattern a `matches` condition takes, in characters, after its templates are rendered.
 * Compiling costs about 1 µs per RE2 instruction, and 1,000 characters compile to at most about
 * 160,000 of them (`.{999}` repeated), so no pattern takes more than about 0.2 s to compile.
 */
export const MATCHES_PATTERN_MAX_LENGTH = 1_000;

/**
 * The most work one `matches` test may take: the text's length times the compiled pattern's size in
 * RE2 instructions. RE2 is linear in the text, but a pattern built to defeat its DFA runs on its NFA,
 * which can visit every instruction at every character: at this limit that held the event loop for
 * up to about half a second here. Everyday patterns compile to a few dozen instructions, so they
 * test texts of a hundred thousand characters and more.
 */
export const MATCHES_WORK_MAX = 5_000_000;

/** The flags of the `/pattern/flags` form that change a yes/no test, as RE2 flags. */
const FLAGS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

export type MatchesPattern = { pattern: RE2JS } | { problem: string };

/**
 * Compiles the `right` of a `matches` condition with RE2, whose matching time is linear in the text:
 * a backtracking RegExp can take exponential time on a pattern such as `^(a+)+$`, and patterns may
 * come from templates. RE2 syntax, bare or as `/pattern/flags` with flags `i`, `m` and `s`; RE2
 * refuses backreferences and lookaround, and the problem says why.
 */
export function compileMatchesPattern(source: string): MatchesPattern {
  if (source.length > MATCHES_PATTERN_MAX_LENGTH) {
    return {
      problem: `the pattern is ${source.length} characters long; a pattern may have at most ${MATCHES_PATTERN_MAX_LENGTH}`,
    };
  }
  // The letters of JavaScript's flags, so that `/a/b` stays a bare pattern as it always was.
  const literal = /^\/(.*)\/([dgimsuvy]*)$/s.exec(source);
  const pattern = literal ? (literal[1] ?? '') : source;
  let flags = 0;
  for (const flag of literal?.[2] ?? '') {
    const value = FLAGS[flag];
    if (value === undefined) {
      return { problem: `the flag "${flag}" of "${source}" is not supported; use i, m or s` };
    }
    flags |= value;
  }
  try {
    return { pattern: RE2JS.compile(pattern, flags) };
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    return { problem: `"${source}" is not a regular expression RE2 accepts: ${error.message}` };
  }
}

/** The longest text that `pattern` may test within `MATCHES_WORK_MAX`. */
export function matchesTextMaxLength(pattern: RE2JS): number {
  return Math.floor(MATCHES_WORK_MAX / pattern.programSize());
}

/**
 * Only the verdicts are kept, not the compiled patterns: a compiled pattern that has been run keeps a
 * DFA of up to 8 MB.
 */
const verdicts = new LRUCache<string, { problem: string | null }>({ max: 1_000 });

/**
 * Why a `matches` pattern cannot run, or null. Remembered per pattern because the runner validates a
 * diagram before every run, and a pattern can take up to 0.2 s to compile.
 */
export function matchesPatternProblem(source: string): string | null {
  let verdict = verdicts.get(source);
  if (!verdict) {
    const compiled = compileMatchesPattern(source);
    verdict = { problem: 'problem' in compiled ? compiled.problem : null };
    verdicts.set(source, verdict);
  }
  return verdict.problem;
}
