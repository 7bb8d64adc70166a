import type {
  AuthHttpRequest,
  AuthHttpResponse,
  CredentialsInvalidated,
  MemberRole,
  Principal,
  ResolveCredential,
  ResolvedCredential,
} from '#contracts';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type pg from 'pg';

import { memberChangeOf } from '../audit/member-changes.js';
import { API_KEY_PREFIX, type Auth } from './auth.factory.js';
import { AuthRepository } from './auth.repository.js';
import { createPasswordUser } from './invitations.plugin.js';

export const AUTH = Symbol('AUTH');
export const AUTH_POOL = Symbol('AUTH_POOL');

/** Keys carry no member of their own; an organization key acts with admin rights in its organization. */
const KEY_ROLE: MemberRole = 'admin';

/**
 * The calls after whose success a cached credential may resolve differently (a session ended, an active
 * organization switched, a role changed or taken away, a key revoked or changed): gateways are told to
 * forget what they cached. Reads, invitations and renames change no credential, so a member reading in a
 * loop cannot empty every gateway's cache.
 */
/** The members and invitations calls the audit log records (`memberChangeOf`). */
const AUDITED_CALLS = new Set([
  'POST /api/auth/organization/invite-member',
  'POST /api/auth/organization/cancel-invitation',
  'POST /api/auth/organization/accept-invitation',
  'POST /api/auth/organization/update-member-role',
  'POST /api/auth/organization/remove-member',
]);

const INVALIDATING_CALLS = new Set([
  'POST /api/auth/sign-out',
  'POST /api/auth/revoke-session',
  'POST /api/auth/revoke-sessions',
  'POST /api/auth/revoke-other-sessions',
  // With `revokeOtherSessions`, the member's other sessions end.
  'POST /api/auth/change-password',
  'POST /api/auth/delete-user',
  'GET /api/auth/delete-user/callback',
  'POST /api/auth/api-key/delete',
  'POST /api/auth/api-key/update',
  'POST /api/auth/organization/set-active',
  'POST /api/auth/organization/accept-invitation',
  'POST /api/auth/invitation/answer',
  'POST /api/auth/organization/leave',
  'POST /api/auth/organization/remove-member',
  'POST /api/auth/organization/update-member-role',
]);

function jsonBody(body: string | undefined): Record<string, unknown> {
  try {
    const parsed: unknown = body === undefined ? {} : JSON.parse(body);
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** better-auth may hold a role this contract does not know (a custom one, or a list of them): no role then. */
const memberRoleOf = (role: string | null): MemberRole | null =>
  role === 'owner' || role === 'admin' || role === 'member' ? role : null;

@Injectable()
export class AuthService implements OnApplicationShutdown {
  constructor(
    @Inject(AUTH) private readonly auth: Auth,
    @Inject(AUTH_POOL) private readonly pool: pg.Pool,
    private readonly accounts: AuthRepository,
  ) {}

  // After the RPC server has drained (on module destroy), so requests in flight still reach the pool.
  async onApplicationShutdown(): Promise<void> {
    await this.pool.end();
  }

  async resolve(credential: ResolveCredential): Promise<ResolvedCredential> {
    if (credential.token?.startsWith(API_KEY_PREFIX)) return this.resolveKey(credential.token);
    return this.resolveSession(credential);
  }

  private async resolveKey(key: string): Promise<ResolvedCredential> {
    const result = await this.auth.api.verifyApiKey({ body: { key } });
    if (!result.valid || !result.key) return { kind: 'unauthorized' };
    const principal: Principal = {
      organizationId: result.key.referenceId,
      userId: null,
      keyId: result.key.id,
      role: KEY_ROLE,
    };
    return { kind: 'principal', principal };
  }

  private async resolveSession({ token, cookie }: ResolveCredential): Promise<ResolvedCredential> {
    const headers = new Headers();
    if (token) headers.set('authorization', `Bearer ${token}`);
    if (cookie) headers.set('cookie', cookie);
    if (!token && !cookie) return { kind: 'unauthorized' };
    const session = await this.auth.api.getSession({ headers });
    if (!session) return { kind: 'unauthorized' };
    const organizationId = (session.session as { activeOrganizationId?: string | null }).activeOrganizationId;
    if (!organizationId) return { kind: 'no_active_organization' };
    const role = await this.memberRole(session.user.id, organizationId);
    if (!role)
      return { kind: 'forbidden', message: 'You are no longer a member of the active organization.' };
    return { kind: 'principal', principal: { organizationId, userId: session.user.id, keyId: null, role } };
  }

  async memberRole(userId: string, organizationId: string): Promise<MemberRole | null> {
    return memberRoleOf(await this.accounts.memberRole(userId, organizationId));
  }

  /** The owners' and admins' addresses, oldest member first. */
  adminEmails(organizationId: string): Promise<string[]> {
    return this.accounts.adminEmails(organizationId);
  }

  /** Answers a browser route under /api/auth exactly as better-auth would behind the gateway. */
  async handleHttp(
    request: AuthHttpRequest,
  ): Promise<{ response: AuthHttpResponse; invalidated: CredentialsInvalidated | null }> {
    const call = `${request.method.toUpperCase()} ${new URL(request.url).pathname}`;
    // Read before the call: after a sign-out or a removal there is no session or member to read.
    const affected = INVALIDATING_CALLS.has(call) ? await this.affectedBy(call, request) : null;
    const actor = AUDITED_CALLS.has(call) ? await this.sessionOf(request) : null;
    const hasBody = request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD';
    const response = await this.auth.handler(
      new Request(request.url, {
        method: request.method,
        headers: request.headers,
        ...(hasBody ? { body: request.body } : {}),
      }),
    );
    const text = await response.text();
    if (response.ok && actor) await this.recordMemberChange(call, request, text, actor);
    return {
      response: { status: response.status, headers: [...response.headers.entries()], body: text },
      invalidated: response.ok ? affected : null,
    };
  }

  private async sessionOf(request: AuthHttpRequest) {
    return this.auth.api.getSession({ headers: new Headers(request.headers) }).catch(() => null);
  }

  /** The audit entry of a members or invitations change better-auth made (docs/audit.md). */
  private async recordMemberChange(
    call: string,
    request: AuthHttpRequest,
    answer: string,
    actor: NonNullable<Awaited<ReturnType<AuthService['sessionOf']>>>,
  ): Promise<void> {
    const body = jsonBody(request.body);
    const change = memberChangeOf(call, body, jsonBody(answer));
    const organizationId =
      change?.organizationId ??
      textOf(body.organizationId) ??
      actor.session.activeOrganizationId ??
      undefined;
    if (!change || !organizationId) return;
    const event = { action: change.action, resource: change.resource, details: change.details };
    // A role change answers the member without its user: named by the user's email all the same.
    const userId = textOf(jsonBody(answer).userId);
    if (!event.resource.name && event.resource.type === 'member' && userId) {
      event.resource = { ...event.resource, name: await this.accounts.emailOf(userId) };
    }
    await this.accounts.recordAudit({ organizationId, userId: actor.user.id, keyId: null }, event);
  }

  /**
   * Whose cached credentials an invalidating call would make stale: the caller's own (the session's
   * user), and the member or key it names. Only these are forgotten, so a call that changes nothing
   * (a sign-out without a session, a switch to the organization already active) costs at most the
   * caller's own cache entries, never every gateway's cache. Null when it names nobody.
   */
  private async affectedBy(call: string, request: AuthHttpRequest): Promise<CredentialsInvalidated | null> {
    const session = await this.auth.api
      .getSession({ headers: new Headers(request.headers) })
      .catch(() => null);
    const userIds = session ? [session.user.id] : [];
    const keyIds: string[] = [];
    const body = jsonBody(request.body);
    switch (call) {
      case 'POST /api/auth/organization/remove-member':
      case 'POST /api/auth/organization/update-member-role': {
        const member = textOf(body.memberIdOrEmail) ?? textOf(body.memberId);
        if (member) userIds.push(...(await this.accounts.userIdsOfMember(member)));
        break;
      }
      case 'POST /api/auth/api-key/delete':
      case 'POST /api/auth/api-key/update': {
        const keyId = textOf(body.keyId);
        if (keyId) keyIds.push(keyId);
        break;
      }
      case 'GET /api/auth/delete-user/callback':
        // Confirmed by a token from an email, maybe without a session: whose is not known here.
        return { all: true };
    }
    return userIds.length + keyIds.length === 0 ? null : { userIds, keyIds };
  }

  // The admin CLI's operations, for operators without a browser.

  /** The operator vouches for the address, so it counts as verified (invitations to it can be accepted). */
  async createUser(email: string, password: string, name: string): Promise<string> {
    const user = await createPasswordUser(await this.auth.$context, {
      email,
      name,
      password,
      emailVerified: true,
    });
    return user.id;
  }

  findUserIdByEmail(email: string): Promise<string | null> {
    return this.accounts.userIdByEmail(email);
  }

  async createOrganization(name: string, ownerUserId: string): Promise<string> {
    const slug = `${
      name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-|-$/g, '')
        .slice(0, 40) || 'org'
    }-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const organization = await this.auth.api.createOrganization({
      body: { name, slug, userId: ownerUserId },
    });
    if (!organization) throw new Error('better-auth created no organization');
    return organization.id;
  }

  organizationExists(organizationId: string): Promise<boolean> {
    return this.accounts.organizationExists(organizationId);
  }

  async addMember(organizationId: string, userId: string, role: MemberRole): Promise<void> {
    await this.auth.api.addMember({ body: { organizationId, userId, role } });
  }

  /** Keys are created on behalf of the organization's first owner, which better-auth requires. */
  async createKey(organizationId: string, name: string): Promise<string> {
    const owner = await this.accounts.firstOwner(organizationId);
    if (!owner) throw new Error(`organization ${organizationId} has no owner`);
    const created = await this.auth.api.createApiKey({ body: { organizationId, userId: owner, name } });
    return created.key;
  }
}
