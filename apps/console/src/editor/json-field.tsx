import { useState } from 'react';

const asText = (value: unknown) => (value === undefined ? '' : JSON.stringify(value, null, 2));

/** Free-form objects and arrays (an action's input, a filter, SQL params) are edited as JSON. */
export function JsonField({
  id,
  label,
  hint,
  value,
  onChange,
}: {
  id: string;
  label: string;
  hint?: string;
  value: unknown;
  onChange: (value: unknown) => void;
}) {
  const [text, setText] = useState(() => asText(value));
  const [problem, setProblem] = useState<string | null>(null);
  // A new value (this field's own, once parsed, or one set elsewhere) is shown as formatted JSON.
  const [shown, setShown] = useState(value);
  if (value !== shown) {
    setShown(value);
    setText(asText(value));
  }
  return (
    <div className="field">
      <label htmlFor={id}>{label} (JSON)</label>
      <textarea
        id={id}
        className="code"
        value={text}
        aria-invalid={problem !== null}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => {
          if (text.trim() === '') {
            setProblem(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(text));
            setProblem(null);
          } catch {
            setProblem('This is not valid JSON; the last valid value is kept.');
          }
        }}
      />
      {problem ? <small className="notice error">{problem}</small> : null}
      {hint ? <small className="muted">{hint}</small> : null}
    </div>
  );
}
