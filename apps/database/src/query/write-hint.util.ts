/** Space and comments, then a keyword that starts a statement that only reads. */
const READING =
  /^(?:\s|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/)*(?:select|with|from|values|table|show|describe|summarize|explain|pragma)\b/i;

/**
 * Whether a batch seems to write: one of its statements does not start like a read. Only a guess, to
 * ask for the batch's storage budget while the engine prepares it; the engine decides, and asks
 * itself when the guess missed (`WITH … INSERT`, `SELECT nextval(…)`).
 */
export function seemsToWrite(statements: ReadonlyArray<{ sql: string }>): boolean {
  return statements.some((statement) => !READING.test(statement.sql));
}
