import { createFileRoute, Link } from '@tanstack/react-router';
import { useState } from 'react';

import { CredentialsForm } from '../auth/credentials-form';
import { auth } from '../auth/session';
import { EmailField, NameField, PasswordField } from '../components/account-fields';

/** Offered when the installation lets anyone sign up (`SIGNUP=open`); elsewhere the API refuses it. */
export const Route = createFileRoute('/sign-up')({ component: SignUpPage });

function SignUpPage() {
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
