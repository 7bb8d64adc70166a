import { StatementType } from '@duckdb/node-api';

/**
 * Statements a batch refuses although the engine's settings would let them through. File and network
 * access, extension installs and configuration changes are already closed by the settings each
 * database opens with (see `open-databases.ts`); what remains is:
 * - transaction control, because the batch is the transaction: a COMMIT inside would make a later
 *   failure half-apply the batch;
 * - ATTACH and DETACH, even of an in-memory database: a batch reaches only its own database;
 * - LOAD and INSTALL of extensions, even built-in ones;
 * - PRAGMA statements that remain PRAGMA after parsing (profiling switches): they write to the
 *   service's output. Reading pragmas such as `PRAGMA table_info` parse as SELECT or CALL and run;
 * - the table functions `textRefusal` names, which the settings do not cover.
 */
const REFUSED: Partial<Record<StatementType, string>> = {
  [StatementType.TRANSACTION]:
    'Transaction statements are not allowed: each batch already runs in one transaction, committed when every statement succeeds.',
  [StatementType.ATTACH]: 'ATTACH is not allowed: a query reaches only its own database.',
  [StatementType.DETACH]: 'DETACH is not allowed: a query reaches only its own database.',
  [StatementType.COPY_DATABASE]: 'COPY FROM DATABASE is not allowed: a query reaches only its own database.',
  [StatementType.LOAD]: 'Loading or installing extensions is not allowed.',
  [StatementType.EXTENSION]: 'Extension statements are not allowed.',
  [StatementType.UPDATE_EXTENSIONS]: 'Updating extensions is not allowed.',
  [StatementType.PRAGMA]: 'This PRAGMA is not allowed here.',
};

/** Why a statement of this type may not run, or null when it may. */
export function refusal(type: StatementType): string | null {
  const reason = REFUSED[type];
  return reason === undefined ? null : `Permission Error: ${reason}`;
}

/**
 * Table functions the settings do not cover, refused by name anywhere in the text, string literals
 * included: a view or macro that calls them would be created by a statement that names them, and the
 * engine has no way to name a function but in SQL text (it does not implement `U&` escapes). Data that
 * spells one of these names can travel as a param.
 *
 * - `enable_logging` can send the instance's log to stdout or to a file it may not write, after which
 *   every query on that database fails and closing it aborts the process; `enable_profiling` and the
 *   parser switches change the engine although its configuration is locked.
 * - `json_execute_serialized_sql`, like `query()`, runs SQL built from strings, which no check on the
 *   text could see into.
 * - The catalog functions and pragmas that show the server's paths (the database file, its spill
 *   directory, the extension and secret directories): their paths name the data directory and the
 *   organization. Engine messages that carry a path anyway are scrubbed (path-scrubber.ts).
 */
const REFUSED_NAMES: ReadonlyArray<[string, string]> = [
  ['enable_logging', 'it changes the engine'],
  ['enable_profiling', 'it changes the engine'],
  ['peg_parser', 'it changes the engine'],
  ['json_execute_serialized_sql', 'it runs SQL built from strings'],
  ['current_setting', 'the settings show server paths'],
  ['duckdb_settings', 'the settings show server paths'],
  ['pg_settings', 'the settings show server paths'],
  ['duckdb_databases', 'it shows server paths'],
  ['database_list', 'it shows server paths'],
  ['duckdb_extensions', 'it shows server paths'],
  ['extension_versions', 'it shows server paths'],
  ['duckdb_temporary_files', 'it shows server paths'],
];

/** Why the text of a statement may not run, or null when it may. */
export function textRefusal(sql: string): string | null {
  const lower = sql.toLowerCase();
  for (const [name, why] of REFUSED_NAMES) {
    if (lower.includes(name)) return `Permission Error: ${name} is not allowed here: ${why}.`;
  }
  if (callsQueryFunction(lower)) {
    return 'Permission Error: the query() table function is not allowed; send each statement as its own item.';
  }
  return null;
}

/**
 * `query(…)`, maybe quoted, with only space or comments before its parenthesis. A column named
 * `query` is fine; `query(` inside a string literal is refused too, which errs on the safe side.
 */
function callsQueryFunction(lower: string): boolean {
  for (const match of lower.matchAll(/\bquery\b"?/g)) {
    if (lower[skipSpaceAndComments(lower, match.index + match[0].length)] === '(') return true;
  }
  return false;
}

function skipSpaceAndComments(text: string, from: number): number {
  let at = from;
  for (;;) {
    while (at < text.length && /\s/.test(text[at])) at += 1;
    if (text.startsWith('--', at)) {
      const end = text.indexOf('\n', at);
      if (end < 0) return text.length;
      at = end + 1;
    } else if (text.startsWith('/*', at)) {
      // Block comments nest in DuckDB's lexer.
      let depth = 1;
      at += 2;
      while (at < text.length && depth > 0) {
        if (text.startsWith('/*', at)) {
          depth += 1;
          at += 2;
        } else if (text.startsWith('*/', at)) {
          depth -= 1;
          at += 2;
        } else {
          at += 1;
        }
      }
    } else {
      return at;
    }
  }
}

/** Only plain reads may run beside other batches without taking the database's write lock. */
export function isRead(type: StatementType): boolean {
  return type === StatementType.SELECT;
}

/**
 * Statements that never make a database larger: what a database at its storage limit may still run,
 * so its owner can read and make room.
 */
const FREEING = new Set<StatementType>([StatementType.SELECT, StatementType.DELETE, StatementType.DROP]);

export function freesSpace(type: StatementType): boolean {
  return FREEING.has(type);
}
