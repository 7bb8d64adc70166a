import { useState } from 'react';

import type { Role } from '../api/browser-routes';
import { EmailField } from '../components/account-fields';
import { Field } from '../components/ui';
import { rolesGiven } from './roles';

/** Owners and admins: an address to invite, with the role it joins as. */
export function InviteForm({
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
            {rolesGiven(mayInviteOwners).map((option) => (
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
