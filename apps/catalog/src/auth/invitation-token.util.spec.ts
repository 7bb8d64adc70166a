import { invitationLink, invitationToken, isInvitationToken } from './invitation-token.util.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';

describe('invitation tokens', () => {
  it('accepts the token made for the invitation, and no other', () => {
    const token = invitationToken(SECRET, 'inv-1');
    expect(isInvitationToken(SECRET, 'inv-1', token)).toBe(true);
    expect(isInvitationToken(SECRET, 'inv-2', token)).toBe(false);
    expect(isInvitationToken(`${SECRET}-other`, 'inv-1', token)).toBe(false);
    expect(isInvitationToken(SECRET, 'inv-1', token.slice(1))).toBe(false);
    expect(isInvitationToken(SECRET, 'inv-1', '')).toBe(false);
  });

  it("links to the console's accept page under the public address, with the token", () => {
    const link = new URL(invitationLink('https://flows.example.com/', SECRET, 'inv/1'));
    expect(link.origin).toBe('https://flows.example.com');
    expect(link.pathname).toBe('/invitations/inv%2F1');
    expect(isInvitationToken(SECRET, 'inv/1', link.searchParams.get('token')!)).toBe(true);
  });
});
