import { RE2JS, RE2JSException } from 're2js';

/**
 * The longest pattern a `matches` condition takes, in characters, after its templates are rendered.
 * Matching is linear in the text, but compiling grows with the pattern (about 0.1 s for a
 * 1,000-character one built to be expensive), and a pattern can come from a run's input.
 */
export const MATCHES_PATTERN_MAX_LENGTH = 1_000;

/**
 * The longest text a `matches` condition tests, in characters: a run's whole input fits. Linear time
 * still costs up to about 17 µs a character on the runner's event loop when a pattern is built to
 * defeat RE2's DFA, so an unbounded text (a large query result) could hold the runner for seconds.
 */
export const MATCHES_TEXT_MAX_LENGTH = 100_000;

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
