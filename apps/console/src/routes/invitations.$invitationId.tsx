import { useQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import type { ReactNode } from 'react';

import { InvitationAnswer } from '../auth/invitation-answer';
import { invitation } from '../auth/organization';
import { useSessionQuery } from '../auth/session';
import { SignInFrame } from '../components/sign-in-frame';
import { ErrorNotice, Loading } from '../components/ui';

/** An invitation's link: answered signed in or not, so outside the signed-in frame. */
export const Route = createFileRoute('/invitations/$invitationId')({
  component: InvitationPage,
  validateSearch: (search: Record<string, unknown>): { token: string } => ({
    token: typeof search.token === 'string' ? search.token : '',
  }),
});

/**
 * Where an invitation's link lands: the invitee signs in, or makes their account for the invited
 * address where `SIGNUP` allows, then joins and lands in the organization.
 */
function InvitationPage() {
  const { invitationId } = Route.useParams();
  const { token } = Route.useSearch();
  const preview = useQuery({
    queryKey: ['invitation', invitationId, token],
    queryFn: () => invitation.preview(invitationId, token),
    retry: false,
  });
  const session = useSessionQuery();

  if (preview.isPending || session.isPending)
    return (
      <Frame title="Invitation">
        <Loading />
      </Frame>
    );
  if (preview.isError)
    return (
      <Frame title="This invitation cannot be used">
        <ErrorNotice error={preview.error} />
        <p>
          Ask whoever invited you for a new one, or <a href="/sign-in">sign in</a>.
        </p>
      </Frame>
    );
  return (
    <Frame title={`Join ${preview.data.organizationName}`}>
      <p>
        <strong>{preview.data.email}</strong> is invited to join as {preview.data.role}.
      </p>
      <InvitationAnswer
        invitationId={invitationId}
        token={token}
        preview={preview.data}
        signedInAs={session.data?.session.user.email ?? null}
      />
    </Frame>
  );
}

function Frame({ title, children }: { title: string; children: ReactNode }) {
  return (
    <SignInFrame>
      <div className="card">
        <h1>{title}</h1>
        {children}
      </div>
    </SignInFrame>
  );
}
