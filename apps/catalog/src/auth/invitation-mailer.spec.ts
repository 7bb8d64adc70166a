import { freePort, startSmtpSink } from '#testing';
import { isAPIError } from 'better-auth/api';

import { CatalogConfig } from '../catalog.config.js';
import { type InvitationLetter, InvitationMailer } from './invitation-mailer.js';

const letter: InvitationLetter = {
  email: 'ann@example.com',
  organizationName: 'Acme',
  inviterEmail: 'owner@example.com',
  role: 'admin',
  link: 'https://flows.example.com/invitations/inv-1?token=abc',
  expiresAt: new Date('2030-01-01T00:00:00Z'),
};

const mailerFor = (smtpUrl?: string) =>
  new InvitationMailer(
    Object.assign(new CatalogConfig(), { SMTP_URL: smtpUrl, SMTP_FROM: 'Flowmesh <fm@example.com>' }),
  );

describe('invitation mailer', () => {
  it('sends nothing without SMTP_URL, and says invitations are not emailed', async () => {
    const mailer = mailerFor();
    expect(mailer.emails).toBe(false);
    await expect(mailer.send(letter)).resolves.toBeUndefined();
  });

  it('emails the invitee the organization, the role and the link', async () => {
    const sink = await startSmtpSink();
    const mailer = mailerFor(sink.url);
    try {
      expect(mailer.emails).toBe(true);
      await mailer.send(letter);
      expect(sink.mails).toHaveLength(1);
      expect(sink.mails[0]!.to).toEqual(['ann@example.com']);
      expect(sink.mails[0]!.text).toContain('Subject: Join Acme on Flowmesh');
      expect(sink.mails[0]!.text).toContain('"Acme" on Flowmesh, as admin');
      expect(sink.mails[0]!.text).toContain(`Accept the invitation: ${letter.link}`);
    } finally {
      mailer.onApplicationShutdown();
      await sink.stop();
    }
  });

  it('answers 502 INVITATION_EMAIL_FAILED when the mail server cannot be reached', async () => {
    const mailer = mailerFor(`smtp://127.0.0.1:${await freePort()}`);
    const failure: unknown = await mailer.send(letter).catch((error: unknown) => error);
    expect(isAPIError(failure) && [failure.statusCode, failure.body?.code]).toEqual([
      502,
      'INVITATION_EMAIL_FAILED',
    ]);
    mailer.onApplicationShutdown();
  });
});
