import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * An invitation's id is seen by every member of its organization (better-auth lists invitations to
 * members), so the id alone proves nothing about who opens the link. The token beside it, a MAC of the
 * id, goes only into the email (or, without a mail server, to the owner or admin who hands it over):
 * holding it shows the link reached the invited address.
 */
export function invitationToken(secret: string, invitationId: string): string {
  return createHmac('sha256', secret).update(`flowmesh-invitation:${invitationId}`).digest('base64url');
}

export function isInvitationToken(secret: string, invitationId: string, token: string): boolean {
  const expected = Buffer.from(invitationToken(secret, invitationId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The console's accept page for the invitation. */
export function invitationLink(publicUrl: string, secret: string, invitationId: string): string {
  const link = new URL(`/invitations/${encodeURIComponent(invitationId)}`, publicUrl);
  link.searchParams.set('token', invitationToken(secret, invitationId));
  return link.toString();
}
