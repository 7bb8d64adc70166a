import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useState } from 'react';

import { auth } from '../auth/session';
import { EmailField, NameField, PasswordField } from '../components/account-fields';
import { ErrorNotice } from '../components/ui';

const WHO_MAKES_ACCOUNTS = {
  closed: 'Accounts are made by the operator of this installation.',
  invite: 'No account? An owner or admin of your organization invites you by email.',
} as const;

export function SignInPage() {
  const mode = useQuery({ queryKey: ['signup-mode'], queryFn: auth.signupMode, staleTime: Infinity });
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  return (
    <CredentialsForm
      title="Sign in to Flowmesh"
      action="Sign in"
      busyAction="Signing in…"
      submit={() => auth.signIn(email, password)}
      footer={
        mode.data?.mode === 'open' ? (
          <p className="muted">
            New here? <Link to="/sign-up">Create an account</Link>
          </p>
        ) : mode.data ? (
          <p className="muted">{WHO_MAKES_ACCOUNTS[mode.data.mode]}</p>
        ) : null
      }
    >
      <EmailField value={email} onChange={setEmail} />
      <PasswordField value={password} onChange={setPassword} />
    </CredentialsForm>
  );
}

/** Offered when the installation lets anyone sign up (`SIGNUP=open`); elsewhere the API refuses it. */
export function SignUpPage() {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  return (
    <CredentialsForm
      title="Create a Flowmesh account"
      action="Create account"
      busyAction="Creating…"
      submit={() => auth.signUp(name.trim(), email, password)}
      footer={
        <p className="muted">
          An organization&apos;s owner or admin then invites you to it. <Link to="/sign-in">Sign in</Link>
        </p>
      }
    >
      <NameField value={name} onChange={setName} />
      <EmailField value={email} onChange={setEmail} />
      <PasswordField value={password} onChange={setPassword} choosing />
    </CredentialsForm>
  );
}

/** A card with a form that, once its request succeeds, forgets everything read and opens the dashboard. */
function CredentialsForm({
  title,
  action,
  busyAction,
  submit,
  footer,
  children,
}: {
  title: string;
  action: string;
  busyAction: string;
  submit: () => Promise<unknown>;
  footer: ReactNode;
  children: ReactNode;
}) {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await submit();
      client.clear();
      await navigate({ to: '/' });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="sign-in" id="main">
      <form onSubmit={(event) => void onSubmit(event)} className="card" aria-labelledby="credentials-title">
        <h1 id="credentials-title">{title}</h1>
        <ErrorNotice error={error} />
        {children}
        <button type="submit" disabled={busy}>
          {busy ? busyAction : action}
        </button>
        {footer}
      </form>
    </main>
  );
}
