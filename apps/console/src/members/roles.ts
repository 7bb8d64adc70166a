import type { Role } from '../api/browser-routes';

const ROLES: Role[] = ['member', 'admin', 'owner'];

/** The roles one may give: only an owner makes an owner. */
export const rolesGiven = (mayMakeOwners: boolean) =>
  ROLES.filter((option) => option !== 'owner' || mayMakeOwners);
