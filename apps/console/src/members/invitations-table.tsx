import type { InvitationRow } from '../api/browser-routes';
import { formatTime } from '../components/ui';
import { Table } from './table';

/** The pending invitations; for those who manage, each one to send again or cancel. */
export function InvitationsTable({
  rows,
  manages,
  busy,
  onSendAgain,
  onCancel,
}: {
  rows: InvitationRow[];
  manages: boolean;
  busy: boolean;
  onSendAgain: (row: InvitationRow) => void;
  onCancel: (row: InvitationRow) => void;
}) {
  return (
    <Table
      label="Pending invitations"
      columns={['Email', 'Role', 'Expires']}
      actions={manages ? 'Actions' : null}
    >
      {rows.map((row) => (
        <tr key={row.id}>
          <td>{row.email}</td>
          <td>{row.role}</td>
          <td>{formatTime(row.expiresAt)}</td>
          {manages ? (
            <td className="row">
              <button type="button" className="secondary" disabled={busy} onClick={() => onSendAgain(row)}>
                Send again to {row.email}
              </button>
              <button type="button" className="danger" disabled={busy} onClick={() => onCancel(row)}>
                Cancel invitation for {row.email}
              </button>
            </td>
          ) : null}
        </tr>
      ))}
    </Table>
  );
}
