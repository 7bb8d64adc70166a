import type {
  AuthContext,
  BetterAuthOptions,
  BetterAuthPlugin,
  GenericEndpointContext,
} from '@better-auth/core';
import { runWithTransaction } from '@better-auth/core/context';
import type { User } from 'better-auth';
import { APIError, createAuthEndpoint, sessionMiddleware } from 'better-auth/api';
import { setSessionCookie } from 'better-auth/cookies';
import type { Invitation, Member, Organization } from 'better-auth/plugins';
import * as z from 'zod';

import { invitationLink, isInvitationToken } from './invitation-token.util.js';
import { invitationsMakeAccounts, type SignupMode } from './signup-mode.js';

export interface InvitationAccessOptions {
  signup: SignupMode;
  secret: string;
  publicUrl: string;
  /** Invitations go by email: their links are then never shown in the console. */
  emailed: boolean;
}

const byToken = z.object({ invitationId: z.string().max(200), token: z.string().max(200) });

/** An invitation still open, for the holder of its link; any other answer is the same refusal. */
async function openInvitation(
  ctx: GenericEndpointContext,
  secret: string,
  { invitationId, token }: z.infer<typeof byToken>,
): Promise<Invitation> {
  const invitation = await ctx.context.adapter.findOne<Invitation>({
    model: 'invitation',
    where: [{ field: 'id', value: invitationId }],
  });
  if (
    !invitation ||
    invitation.status !== 'pending' ||
    invitation.expiresAt < new Date() ||
    !isInvitationToken(secret, invitationId, token)
  )
    throw new APIError('BAD_REQUEST', {
      code: 'INVITATION_NOT_FOUND',
      message: 'This invitation does not exist, has expired, or was already answered or cancelled.',
    });
  return invitation;
}

/** The open invitation of the link, for its recipient signed in. */
async function recipientsInvitation(
  ctx: GenericEndpointContext & { context: { session: { user: User } } },
  secret: string,
  link: z.infer<typeof byToken>,
): Promise<Invitation> {
  const invitation = await openInvitation(ctx, secret, link);
  const { user } = ctx.context.session;
  if (invitation.email.toLowerCase() !== user.email.toLowerCase())
    throw new APIError('FORBIDDEN', {
      code: 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION',
      message: `This invitation is for ${invitation.email}; you are signed in as ${user.email}.`,
    });
  return invitation;
}

/** An emailed link reached the address: it is the signed-in user's. */
async function proveAddress(ctx: GenericEndpointContext & { context: { session: { user: User } } }) {
  const { user } = ctx.context.session;
  if (!user.emailVerified) await ctx.context.internalAdapter.updateUser(user.id, { emailVerified: true });
}

/**
 * Answers one invitation for its recipient, on the proof of its own link alone: no address is taken
 * for proven by it, so it opens no other invitation. Accepting makes them a member with the invited
 * role and switches their session to the organization.
 */
async function answer(
  ctx: GenericEndpointContext & { context: { session: { user: User; session: { token: string } } } },
  invitation: Invitation,
  accept: boolean,
): Promise<void> {
  const { user, session } = ctx.context.session;
  await runWithTransaction(ctx.context.adapter, async () => {
    const answered = await ctx.context.adapter.update<Invitation>({
      model: 'invitation',
      where: [
        { field: 'id', value: invitation.id },
        { field: 'status', value: 'pending' },
      ],
      update: { status: accept ? 'accepted' : 'rejected' },
    });
    if (!answered)
      throw new APIError('BAD_REQUEST', {
        code: 'INVITATION_NOT_FOUND',
        message: 'This invitation was answered or cancelled meanwhile.',
      });
    if (!accept) return;
    const member = await ctx.context.adapter.findOne<Member>({
      model: 'member',
      where: [
        { field: 'organizationId', value: invitation.organizationId },
        { field: 'userId', value: user.id },
      ],
    });
    if (!member)
      await ctx.context.adapter.create({
        model: 'member',
        data: {
          organizationId: invitation.organizationId,
          userId: user.id,
          role: invitation.role,
          createdAt: new Date(),
        },
      });
  });
  if (accept)
    await ctx.context.internalAdapter.updateSession(session.token, {
      activeOrganizationId: invitation.organizationId,
    });
}

/**
 * Makes a password account the way better-auth's sign-up does (its sign-up endpoint is off unless
 * `SIGNUP=open`): for the admin CLI and for someone who opened an invitation.
 */
export async function createPasswordUser<Options extends BetterAuthOptions>(
  context: AuthContext<Options>,
  {
    email,
    name,
    password,
    emailVerified,
  }: { email: string; name: string; password: string; emailVerified: boolean },
): Promise<User> {
  const { minPasswordLength, maxPasswordLength } = context.password.config;
  if (password.length < minPasswordLength || password.length > maxPasswordLength)
    throw new APIError('BAD_REQUEST', {
      code: 'INVALID_PASSWORD_LENGTH',
      message: `A password has ${minPasswordLength} to ${maxPasswordLength} characters.`,
    });
  const hash = await context.password.hash(password);
  return runWithTransaction(context.adapter, async () => {
    const user = await context.internalAdapter.createUser(
      { email: email.toLowerCase(), name, emailVerified },
      { method: 'email-password' },
    );
    await context.internalAdapter.linkAccount({
      userId: user.id,
      providerId: 'credential',
      accountId: user.id,
      password: hash,
    });
    return user;
  });
}

/**
 * What better-auth leaves to the application about who may join: the sign-up mode, for the console,
 * and around an invitation's link: who opened it (the token), making the invitee's account where `SIGNUP` allows, and the link itself for
 * owners and admins when there is no mail server. The link's holder answers through
 * `/invitation/answer`, which takes the link for proof of that one invitation. Only an emailed link
 * proves the address itself (better-auth's own `/organization/accept-invitation` asks for a verified
 * one): a link the inviter handed over says nothing of who reads that mailbox.
 */
export function invitationAccess(options: InvitationAccessOptions) {
  return {
    id: 'flowmesh-invitation-access',
    endpoints: {
      // For the console's sign-in page: whether to offer a sign-up form. A stranger learns as much by trying.
      signupMode: createAuthEndpoint('/signup-mode', { method: 'GET' }, async (ctx) =>
        ctx.json({ mode: options.signup }),
      ),

      previewInvitation: createAuthEndpoint(
        '/invitation/preview',
        { method: 'GET', query: byToken },
        async (ctx) => {
          const invitation = await openInvitation(ctx, options.secret, ctx.query);
          const organization = await ctx.context.adapter.findOne<Organization>({
            model: 'organization',
            where: [{ field: 'id', value: invitation.organizationId }],
          });
          const account = await ctx.context.internalAdapter.findUserByEmail(invitation.email);
          return ctx.json({
            email: invitation.email,
            role: invitation.role,
            organizationName: organization?.name ?? '',
            expiresAt: invitation.expiresAt,
            hasAccount: account !== null,
            canCreateAccount: account === null && invitationsMakeAccounts(options.signup),
          });
        },
      ),

      signUpByInvitation: createAuthEndpoint(
        '/invitation/sign-up',
        {
          method: 'POST',
          body: byToken.extend({ name: z.string().trim().min(1).max(100), password: z.string().max(1000) }),
        },
        async (ctx) => {
          if (!invitationsMakeAccounts(options.signup))
            throw new APIError('FORBIDDEN', {
              code: 'SIGNUP_CLOSED',
              message: 'Accounts on this installation are made by its operator.',
            });
          const invitation = await openInvitation(ctx, options.secret, ctx.body);
          if (await ctx.context.internalAdapter.findUserByEmail(invitation.email))
            throw new APIError('UNPROCESSABLE_ENTITY', {
              code: 'USER_ALREADY_EXISTS',
              message: `${invitation.email} already has an account: sign in to accept the invitation.`,
            });
          // An emailed link proves the address; one the inviter handed over (no mail server) does not,
          // or an admin could make the account of anyone invited anywhere and answer every invitation.
          const user = await createPasswordUser(ctx.context, {
            email: invitation.email,
            name: ctx.body.name,
            password: ctx.body.password,
            emailVerified: options.emailed,
          });
          const session = await ctx.context.internalAdapter.createSession(user.id);
          await setSessionCookie(ctx, { session, user });
          return ctx.json({
            token: session.token,
            user: { id: user.id, email: user.email, name: user.name },
          });
        },
      ),

      confirmInvitedEmail: createAuthEndpoint(
        '/invitation/confirm-email',
        { method: 'POST', body: byToken, use: [sessionMiddleware] },
        async (ctx) => {
          const invitation = await recipientsInvitation(ctx, options.secret, ctx.body);
          if (!options.emailed)
            throw new APIError('FORBIDDEN', {
              code: 'LINK_NOT_EMAILED',
              message:
                'Without a mail server the link was handed over by its inviter, so it proves no address: answer the invitation with /invitation/answer.',
            });
          await proveAddress(ctx);
          return ctx.json({ emailVerified: true, invitationId: invitation.id });
        },
      ),

      answerInvitation: createAuthEndpoint(
        '/invitation/answer',
        { method: 'POST', body: byToken.extend({ accept: z.boolean() }), use: [sessionMiddleware] },
        async (ctx) => {
          const invitation = await recipientsInvitation(ctx, options.secret, ctx.body);
          if (options.emailed) await proveAddress(ctx);
          await answer(ctx, invitation, ctx.body.accept);
          return ctx.json({ status: ctx.body.accept ? 'accepted' : 'rejected' });
        },
      ),

      invitationLink: createAuthEndpoint(
        '/invitation/link',
        { method: 'GET', query: z.object({ invitationId: z.string().max(200) }), use: [sessionMiddleware] },
        async (ctx) => {
          const { invitationId } = ctx.query;
          const invitation = await ctx.context.adapter.findOne<Invitation>({
            model: 'invitation',
            where: [{ field: 'id', value: invitationId }],
          });
          const member =
            invitation &&
            (await ctx.context.adapter.findOne<Member>({
              model: 'member',
              where: [
                { field: 'organizationId', value: invitation.organizationId },
                { field: 'userId', value: ctx.context.session.user.id },
              ],
            }));
          if (!invitation || !member)
            throw new APIError('BAD_REQUEST', {
              code: 'INVITATION_NOT_FOUND',
              message: 'This invitation does not exist.',
            });
          const roles = member.role.split(',').map((role) => role.trim());
          if (!roles.includes('owner') && !roles.includes('admin'))
            throw new APIError('FORBIDDEN', {
              code: 'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
              message: 'Only owners and admins see invitation links.',
            });
          return ctx.json(
            options.emailed
              ? { emailed: true, link: null }
              : { emailed: false, link: invitationLink(options.publicUrl, options.secret, invitationId) },
          );
        },
      ),
    },
  } satisfies BetterAuthPlugin;
}
