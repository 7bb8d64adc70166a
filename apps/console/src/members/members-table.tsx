import type { MemberRow, Role } from '../api/browser-routes';
import { formatTime } from '../components/ui';
import { rolesGiven } from './roles';
import { Table } from './table';

/** The members; for those who manage, each one's role to change and a button to remove them. */
export function MembersTable({
  rows,
  me,
  manages,
  mayMakeOwners,
  busy,
  onRole,
  onRemove,
}: {
  rows: MemberRow[];
  me: string;
  manages: boolean;
  mayMakeOwners: boolean;
  busy: boolean;
  onRole: (memberId: string, role: Role) => void;
  onRemove: (row: MemberRow) => void;
}) {
  return (
    <Table label="Members" columns={['Name', 'Email', 'Role', 'Joined']} actions={manages ? 'Remove' : null}>
      {rows.map((row) => {
        // Only an owner changes an owner, and nobody changes themselves here.
        const editable = manages && row.userId !== me && (row.role !== 'owner' || mayMakeOwners);
        return (
          <tr key={row.id}>
            <td>{row.user.name}</td>
            <td>{row.user.email}</td>
            <td>
              {editable ? (
                <select
                  aria-label={`Role of ${row.user.email}`}
                  value={row.role}
                  disabled={busy}
                  onChange={(event) => onRole(row.id, event.target.value as Role)}
                >
                  {rolesGiven(mayMakeOwners).map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </select>
              ) : (
                row.role
              )}
            </td>
            <td>{formatTime(row.createdAt)}</td>
            {manages ? (
              <td>
                {editable ? (
                  <button type="button" className="danger" disabled={busy} onClick={() => onRemove(row)}>
                    Remove {row.user.email}
                  </button>
                ) : null}
              </td>
            ) : null}
          </tr>
        );
      })}
    </Table>
  );
}
