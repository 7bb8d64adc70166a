import './sign-in-frame.css';

import type { ReactNode } from 'react';

/** The frame of the pages outside the signed-in one (sign-in, an invitation, not found): centred. */
export function SignInFrame({ children }: { children: ReactNode }) {
  return (
    <main id="main" className="sign-in">
      {children}
    </main>
  );
}
