export const SIGNUP_MODES = ['closed', 'invite', 'open'] as const;

/** Who may make an account over HTTP; operators make accounts with the admin CLI in every mode. */
export type SignupMode = (typeof SIGNUP_MODES)[number];

/** Whether someone with an invitation, and no account yet, may make one for the invited address. */
export const invitationsMakeAccounts = (mode: SignupMode): boolean => mode !== 'closed';
