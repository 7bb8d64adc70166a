import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { useState } from 'react';

import type { Role } from '../../api/browser-routes';
import { organization } from '../../auth/organization';
import { managesOrganization, useMember } from '../../auth/session';
import { ErrorNotice, PageHeader, QueryView } from '../../components/ui';
import { type Delivery, DeliveryNotice } from '../../members/delivery-notice';
import { InvitationsTable } from '../../members/invitations-table';
import { InviteForm } from '../../members/invite-form';
import { MembersTable } from '../../members/members-table';

export const Route = createFileRoute('/_signed-in/members')({ component: MembersPage });

/**
 * The organization's members and pending invitations. Everyone sees them; owners and admins invite by
 * email, cancel invitations, change roles and remove members (only an owner makes or changes an owner).
 */
function MembersPage() {
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
