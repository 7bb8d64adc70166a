import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, type ReactNode, useState } from 'react';

import { SignInFrame } from '../components/sign-in-frame';
import { ErrorNotice } from '../components/ui';

/** A card with a form that, once its request succeeds, forgets everything read and opens the dashboard. */
export function CredentialsForm({
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
    <SignInFrame>
      <form onSubmit={(event) => void onSubmit(event)} className="card" aria-labelledby="credentials-title">
        <h1 id="credentials-title">{title}</h1>
        <ErrorNotice error={error} />
        {children}
        <button type="submit" disabled={busy}>
          {busy ? busyAction : action}
        </button>
        {footer}
      </form>
    </SignInFrame>
  );
}
