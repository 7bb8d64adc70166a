import type { AuditCaller, AuditEvent } from '#persistence';
import { Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';

import { audit } from '../audit/catalog-audit.js';
import type { DB } from '../catalog.tables.js';
import { InjectAuthDb } from './auth.database.js';

/**
 * Reads of better-auth's users, members and organizations that its API does not answer in one call.
 * better-auth writes them; catalog only reads. Email addresses are stored in lower case.
 */
@Injectable()
export class AuthRepository {
  constructor(@InjectAuthDb() private readonly db: Kysely<DB>) {}

  async emailOf(userId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('auth.user')
      .select('email')
      .where('id', '=', userId)
      .executeTakeFirst();
    return row?.email ?? null;
  }

  /** Records a change better-auth committed on its own (members, invitations). */
  async recordAudit(caller: AuditCaller, event: AuditEvent): Promise<void> {
    await audit.record(this.db, caller, event);
  }

  /** The member's role as better-auth stored it; null when the user is no member of the organization. */
  async memberRole(userId: string, organizationId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('auth.member')
      .select('role')
      .where('userId', '=', userId)
      .where('organizationId', '=', organizationId)
      .executeTakeFirst();
    return row?.role ?? null;
  }

  /** The owners' and admins' addresses, oldest member first. */
  async adminEmails(organizationId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('auth.member as m')
      .innerJoin('auth.user as u', 'u.id', 'm.userId')
      .select('u.email')
      .where('m.organizationId', '=', organizationId)
      .where('m.role', 'in', ['owner', 'admin'])
      .orderBy('m.createdAt')
      .execute();
    return rows.map((row) => row.email);
  }

  /** The user behind a member id, or behind an email address as better-auth's removal takes it. */
  async userIdsOfMember(memberIdOrEmail: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('auth.member')
      .select('userId')
      .where('id', '=', memberIdOrEmail)
      .union((eb) =>
        eb
          .selectFrom('auth.user')
          .select('id as userId')
          .where('email', '=', eb.fn<string>('lower', [eb.val(memberIdOrEmail)])),
      )
      .execute();
    return rows.map((row) => row.userId);
  }

  async userIdByEmail(email: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('auth.user')
      .select('id')
      .where('email', '=', email.toLowerCase())
      .executeTakeFirst();
    return row?.id ?? null;
  }

  async organizationExists(organizationId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('auth.organization')
      .select('id')
      .where('id', '=', organizationId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The organization's first owner, on whose behalf keys are made (better-auth wants an owning member). */
  async firstOwner(organizationId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('auth.member')
      .select('userId')
      .where('organizationId', '=', organizationId)
      .where('role', '=', 'owner')
      .orderBy('createdAt')
      .limit(1)
      .executeTakeFirst();
    return row?.userId ?? null;
  }

  /** The organization the user joined first; null when the user is a member of none. */
  async firstOrganizationOf(userId: string): Promise<string | null> {
    const row = await this.db
      .selectFrom('auth.member')
      .select('organizationId')
      .where('userId', '=', userId)
      .orderBy('createdAt')
      .limit(1)
      .executeTakeFirst();
    return row?.organizationId ?? null;
  }
}
