import { useQuery } from '@tanstack/react-query';
import { createFileRoute, Link } from '@tanstack/react-router';
import { useState } from 'react';

import { CredentialsForm } from '../auth/credentials-form';
import { auth } from '../auth/session';
import { EmailField, PasswordField } from '../components/account-fields';

export const Route = createFileRoute('/sign-in')({ component: SignInPage });

const WHO_MAKES_ACCOUNTS = {
  closed: 'Accounts are made by the operator of this installation.',
  invite: 'No account? An owner or admin of your organization invites you by email.',
} as const;

function SignInPage() {
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
