import type { ReactNode } from 'react';

/** A labelled table; `actions` names the last column's buttons, for those who may use them. */
export function Table({
  label,
  columns,
  actions,
  children,
}: {
  label: string;
  columns: string[];
  actions: string | null;
  children: ReactNode;
}) {
  return (
    <div className="table-wrap" tabIndex={0}>
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions ? (
              <th scope="col">
                <span className="visually-hidden">{actions}</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
