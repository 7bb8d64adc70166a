import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { APIError } from 'better-auth/api';
import { createTransport, type Transporter } from 'nodemailer';

import { CatalogConfig } from '../catalog.config.js';
import { logger } from '../catalog.logger.js';

export interface InvitationLetter {
  email: string;
  organizationName: string;
  inviterEmail: string;
  role: string;
  link: string;
  expiresAt: Date;
}

/**
 * Emails invitations over `SMTP_URL`. Without it nothing is sent: the link is logged, and owners and
 * admins read it in the console to hand it over themselves.
 */
@Injectable()
export class InvitationMailer implements OnApplicationShutdown {
  private readonly transport: Transporter | null;
  private readonly from: string;

  constructor(@Inject(CatalogConfig) config: CatalogConfig) {
    this.transport = config.SMTP_URL ? createTransport(config.SMTP_URL) : null;
    this.from = config.SMTP_FROM;
  }

  /** Whether invitations go by email; if not, their links are shown to owners and admins. */
  get emails(): boolean {
    return this.transport !== null;
  }

  onApplicationShutdown(): void {
    this.transport?.close();
  }

  async send(letter: InvitationLetter): Promise<void> {
    if (!this.transport) {
      logger.info(
        { to: letter.email, organization: letter.organizationName, link: letter.link },
        'an invitation was made; SMTP_URL is not set, so no email was sent',
      );
      return;
    }
    try {
      await this.transport.sendMail({
        from: this.from,
        to: letter.email,
        subject: `Join ${letter.organizationName} on Flowmesh`,
        text:
          `${letter.inviterEmail} invited you to the organization "${letter.organizationName}" on ` +
          `Flowmesh, as ${letter.role}.\n\nAccept the invitation: ${letter.link}\n\n` +
          `The link works until ${letter.expiresAt.toISOString()}. If you did not expect it, ignore this email.\n`,
      });
    } catch (error) {
      logger.warn({ err: error, to: letter.email }, 'emailing an invitation failed');
      // The invitation is saved: its email can be sent again.
      throw new APIError('BAD_GATEWAY', {
        code: 'INVITATION_EMAIL_FAILED',
        message:
          'The invitation is saved, but its email could not be sent. Send it again once the mail server answers.',
      });
    }
  }
}
