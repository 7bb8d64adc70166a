import type { Schemas } from '../api/client';
import { Empty } from '../components/ui';

/** Each statement of a batch with what it read and wrote, and its rows as a table. */
export function StatementResults({
  results,
  statements,
}: {
  results: Array<Schemas['QueryResultDto']>;
  statements: string[];
}) {
  return (
    <>
      {results.map((result, index) => (
        <div key={index}>
          <h3>
            Statement {index + 1}{' '}
            <span className="muted">
              · {result.rows.length} row{result.rows.length === 1 ? '' : 's'} · read {result.meta.rowsRead} ·
              written {result.meta.rowsWritten}
            </span>
          </h3>
          <pre className="muted">{statements[index]}</pre>
          {result.columns.length === 0 ? (
            <Empty>No rows returned.</Empty>
          ) : (
            <div className="table-wrap" tabIndex={0}>
              <table aria-label={`Result of statement ${index + 1}`}>
                <thead>
                  <tr>
                    {result.columns.map((column) => (
                      <th scope="col" key={column}>
                        {column}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {result.rows.map((row, rowIndex) => (
                    <tr key={rowIndex}>
                      {row.map((cell, cellIndex) => (
                        <td key={cellIndex}>
                          {cell === null ? (
                            <span className="muted">null</span>
                          ) : typeof cell === 'object' ? (
                            JSON.stringify(cell)
                          ) : (
                            String(cell)
                          )}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      ))}
    </>
  );
}
