import './dialog.css';

import { type ReactNode, useEffect, useId, useRef } from 'react';

/**
 * A modal dialog on the browser's own `<dialog>`: it keeps the focus inside, Escape closes it, and the
 * page behind is inert. Render it only while it is open; closing asks the owner to stop rendering it.
 */
export function Dialog({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
