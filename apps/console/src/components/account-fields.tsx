import { Field } from './ui';

interface TextFieldProps {
  value: string;
  onChange: (value: string) => void;
}

export function NameField({ value, onChange }: TextFieldProps) {
  return (
    <Field label="Your name">
      {(id) => (
        <input
          id={id}
          autoComplete="name"
          required
          maxLength={100}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

/** An account's address, or (with another `label`) someone else's. */
export function EmailField({ value, onChange, label = 'Email' }: TextFieldProps & { label?: string }) {
  return (
    <Field label={label}>
      {(id) => (
        <input
          id={id}
          type="email"
          autoComplete={label === 'Email' ? 'username' : 'off'}
          required
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}

/** The password of an account, or (`choosing`) the one a new account gets. */
export function PasswordField({
  value,
  onChange,
  choosing = false,
}: TextFieldProps & { choosing?: boolean }) {
  return (
    <Field
      label={choosing ? 'Choose a password' : 'Password'}
      {...(choosing ? { hint: 'At least 8 characters.' } : {})}
    >
      {(id) => (
        <input
          id={id}
          type="password"
          autoComplete={choosing ? 'new-password' : 'current-password'}
          required
          minLength={choosing ? 8 : undefined}
          value={value}
          onChange={(event) => onChange(event.target.value)}
        />
      )}
    </Field>
  );
}
