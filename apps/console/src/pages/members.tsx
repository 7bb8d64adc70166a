import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ReactNode, useState } from 'react';

import { type InvitationRow, type MemberRow, organization } from '../auth/organization';
import { managesOrganization, type Role, useMember } from '../auth/session';
import { EmailField } from '../components/account-fields';
import { CopyValue, ErrorNotice, Field, formatTime, PageHeader, QueryView } from '../components/ui';

const ROLES: Role[] = ['member', 'admin', 'owner'];

/** How an invitation reaches its person: by email, or by a link the inviter hands over. */
interface Delivery {
  email: string;
  link: string | null;
}

/**
 * The organization's members and pending invitations. Everyone sees them; owners and admins invite by
 * email, cancel invitations, change roles and remove members (only an owner makes or changes an owner).
 */
export function MembersPage() {
  const me = useMember();
  const client = useQueryClient();
  const manages = managesOrganization(me.role);
  const [delivery, setDelivery] = useState<Delivery | null>(null);
  const members = useQuery({ queryKey: ['members'], queryFn: organization.members });
  const invitations = useQuery({
    queryKey: ['invitations'],
    queryFn: organization.invitations,
    select: (rows) =>
      rows.filter((row) => row.status === 'pending' && new Date(row.expiresAt).getTime() > Date.now()),
  });
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['members'] }),
      client.invalidateQueries({ queryKey: ['invitations'] }),
    ]);

  const send = useMutation({
    mutationFn: async ({ email, role, resend }: { email: string; role: Role; resend: boolean }) => {
      setDelivery(null);
      const made = await organization.invite(email, role, resend);
      const { link } = await organization.link(made.id);
      return { email: made.email, link };
    },
    onSuccess: setDelivery,
    // Refused or not, the list may have changed (an invitation whose email failed is still made).
    onSettled: () => void refresh(),
  });
  const cancel = useMutation({ mutationFn: organization.cancel, onSuccess: () => void refresh() });
  const setRole = useMutation({
    mutationFn: ({ memberId, role }: { memberId: string; role: Role }) =>
      organization.setRole(memberId, role),
    onSettled: () => void refresh(),
  });
  const remove = useMutation({ mutationFn: organization.remove, onSuccess: () => void refresh() });

  return (
    <>
      <PageHeader title="Members" />
      {manages ? (
        <InviteForm
          mayInviteOwners={me.role === 'owner'}
          busy={send.isPending}
          onInvite={(email, role) => send.mutate({ email, role, resend: false })}
        />
      ) : (
        <p className="muted">
          Owners and admins of {me.organization?.name ?? 'the organization'} invite members.
        </p>
      )}
      {delivery ? <DeliveryNotice delivery={delivery} /> : null}
      <ErrorNotice error={send.error} title="Could not send the invitation." />
      <ErrorNotice error={cancel.error} title="Could not cancel the invitation." />
      <ErrorNotice error={setRole.error} title="Could not change the role." />
      <ErrorNotice error={remove.error} title="Could not remove the member." />

      <h2>Members</h2>
      <QueryView query={members}>
        {({ members: rows }) => (
          <MembersTable
            rows={rows}
            me={me.session.user.id}
            manages={manages}
            mayMakeOwners={me.role === 'owner'}
            busy={setRole.isPending || remove.isPending}
            onRole={(memberId, role) => setRole.mutate({ memberId, role })}
            onRemove={(row) => {
              if (window.confirm(`Remove ${row.user.email}? Their sessions stop reaching this organization.`))
                remove.mutate(row.id);
            }}
          />
        )}
      </QueryView>

      <h2>Pending invitations</h2>
      <QueryView query={invitations} isEmpty={(rows) => rows.length === 0} empty="No pending invitations.">
        {(rows) => (
          <InvitationsTable
            rows={rows}
            manages={manages}
            busy={send.isPending || cancel.isPending}
            onSendAgain={(row) => send.mutate({ email: row.email, role: row.role as Role, resend: true })}
            onCancel={(row) => cancel.mutate(row.id)}
          />
        )}
      </QueryView>
    </>
  );
}

function InviteForm({
  mayInviteOwners,
  busy,
  onInvite,
}: {
  mayInviteOwners: boolean;
  busy: boolean;
  onInvite: (email: string, role: Role) => void;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  return (
    <form
      className="card row"
      onSubmit={(event) => {
        event.preventDefault();
        onInvite(email.trim(), role);
        setEmail('');
      }}
    >
      <EmailField label="Email to invite" value={email} onChange={setEmail} />
      <Field label="Role">
        {(id) => (
          <select id={id} value={role} onChange={(event) => setRole(event.target.value as Role)}>
            {ROLES.filter((option) => option !== 'owner' || mayInviteOwners).map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        )}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? 'Inviting…' : 'Invite'}
      </button>
    </form>
  );
}

function DeliveryNotice({ delivery }: { delivery: Delivery }) {
  if (!delivery.link)
    return (
      <div className="notice success" role="status">
        Invitation emailed to {delivery.email}.
      </div>
    );
  return (
    <CopyValue
      label={`Invitation for ${delivery.email} made.`}
      note="This installation does not email invitations: send them this link yourself. Whoever opens it can join as them."
      value={delivery.link}
    />
  );
}

function MembersTable({
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
                  {ROLES.filter((option) => option !== 'owner' || mayMakeOwners).map((option) => (
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

function InvitationsTable({
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

/** A labelled table; `actions` names the last column's buttons, for those who may use them. */
function Table({
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
