import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';

import type { InvitationPreview } from '../api/browser-routes';
import { NameField, PasswordField } from '../components/account-fields';
import { ErrorNotice } from '../components/ui';
import { invitation } from './organization';
import { auth } from './session';

/** Runs one step of the page (sign in, make the account, join) with its error and busy state. */
function useStep() {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (step: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await step();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run };
}

/**
 * The invitee's answer: sign out when someone else is signed in; join or decline when signed in;
 * otherwise sign in, or make the account where `SIGNUP` allows, and join.
 */
export function InvitationAnswer({
  invitationId,
  token,
  preview,
  signedInAs,
}: {
  invitationId: string;
  token: string;
  preview: InvitationPreview;
  signedInAs: string | null;
}) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const { error, busy, run } = useStep();
  const [declined, setDeclined] = useState(false);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');

  // Everything read so far was for another organization, or for nobody.
  const join = async () => {
    await invitation.accept(invitationId, token);
    await client.resetQueries();
    await navigate({ to: '/' });
  };
  const submit = (step: () => Promise<void>) => (event: FormEvent) => {
    event.preventDefault();
    void run(step);
  };

  if (declined) return <p>You declined the invitation.</p>;

  if (signedInAs !== null && signedInAs.toLowerCase() !== preview.email.toLowerCase())
    return (
      <>
        <p>
          You are signed in as {signedInAs}. Sign out to answer the invitation as {preview.email}.
        </p>
        <ErrorNotice error={error} />
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void run(async () => {
              await auth.signOut();
              await client.resetQueries();
            })
          }
        >
          Sign out
        </button>
      </>
    );

  if (signedInAs !== null)
    return (
      <>
        <ErrorNotice error={error} />
        <div className="row">
          <button type="button" disabled={busy} onClick={() => void run(join)}>
            Join {preview.organizationName}
          </button>
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() =>
              void run(async () => {
                await invitation.reject(invitationId, token);
                setDeclined(true);
              })
            }
          >
            Decline
          </button>
        </div>
      </>
    );

  if (preview.hasAccount)
    return (
      <form
        onSubmit={submit(async () => {
          await auth.signIn(preview.email, password);
          await join();
        })}
      >
        <ErrorNotice error={error} />
        <PasswordField value={password} onChange={setPassword} />
        <button type="submit" disabled={busy}>
          Sign in and join
        </button>
      </form>
    );

  if (preview.canCreateAccount)
    return (
      <form
        onSubmit={submit(async () => {
          await invitation.signUp(invitationId, token, name.trim(), password);
          await join();
        })}
      >
        <p className="muted">Make your account for {preview.email}.</p>
        <ErrorNotice error={error} />
        <NameField value={name} onChange={setName} />
        <PasswordField value={password} onChange={setPassword} choosing />
        <button type="submit" disabled={busy}>
          Create account and join
        </button>
      </form>
    );

  return (
    <p>
      {preview.email} has no account here, and accounts on this installation are made by its operator. Ask
      them for one, then open this link again.
    </p>
  );
}
