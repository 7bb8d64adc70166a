import { CatalogSubjects } from '#contracts';
import {
  ApiClient,
  connectAs,
  ConsoleBrowser,
  createMember,
  createOrganization,
  expectData,
  type MemberFixture,
  type OrganizationFixture,
  signIn,
  type SmtpSink,
  startSmtpSink,
  statusOf,
  TestStack,
  waitFor,
} from '#testing';
import type { NatsConnection } from '@nats-io/transport-node';

let unique = 0;
const addressOf = (name: string) => `${name}-${Date.now().toString(36)}-${(unique += 1)}@example.com`;

// better-auth's answers on the `/api/auth` routes, which the OpenAPI document leaves out.
/** A refused browser request. */
interface AuthError {
  code: string;
  message: string;
}
interface SignedUp {
  token: string;
  user: { id: string };
}
interface Invitation {
  id: string;
}
interface Members {
  members: Array<{ userId: string; role: string }>;
}
interface InvitationPreview {
  email: string;
  role: string;
  organizationName: string;
  expiresAt: string;
  hasAccount: boolean;
  canCreateAccount: boolean;
}

/**
 * Who may join, in the modes the shared stack does not run (`closed`, the default, is proven in
 * identity.e2e-spec.ts): with `SIGNUP=invite` an owner's invitation is emailed, and its link makes
 * the invitee's account and lands them in the organization; with `SIGNUP=open` anyone signs up, and
 * joins an organization only by an invitation. Neither mode lets anyone make an organization over
 * HTTP. Also: which `/api/auth` calls tell gateways to forget cached credentials. One small stack
 * (catalog and the gateway in one process, as `npm start` runs them), restarted for the second mode.
 */
describe('who may join', () => {
  let stack: TestStack;
  let smtp: SmtpSink;
  let browser: ConsoleBrowser;
  let org: OrganizationFixture;
  let owner: MemberFixture;
  let anonymous: ApiClient;
  let origin: { origin: string };

  beforeAll(async () => {
    smtp = await startSmtpSink();
    stack = await TestStack.start(
      { SIGNUP: 'invite', SMTP_URL: smtp.url },
      { services: ['catalog'], allInOne: true },
    );
    browser = await ConsoleBrowser.launch(stack.baseUrl);
    anonymous = new ApiClient(stack.baseUrl);
    origin = { origin: stack.baseUrl };
    org = await createOrganization(stack.description, { name: 'Acme' });
    owner = await createMember(stack.description, org.organizationId, 'owner');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await smtp?.stop();
  });

  /**
   * Starts the process again in another mode, on the same database and NATS; answers the owner signed
   * in on it.
   */
  async function restartIn(signup: 'invite' | 'open'): Promise<ApiClient> {
    await stack.processes.get('all-in-one')!.stop();
    const gateway = await stack.startGateway(
      { SERVICES: 'catalog,gateway', SIGNUP: signup },
      { app: 'all-in-one', timeoutMs: 60_000 },
    );
    stack.processes.set('all-in-one', gateway.process);
    stack.description.baseUrl = gateway.baseUrl;
    anonymous = new ApiClient(gateway.baseUrl);
    origin = { origin: gateway.baseUrl };
    return anonymous.withToken(await signIn(stack.description, owner.email, owner.password));
  }

  /** Organizations are the operator's in every mode. */
  async function expectNoOrganizationMadeBy(client: ApiClient) {
    const made = await client.raw.post<AuthError>(
      '/api/auth/organization/create',
      { name: 'Mine', slug: addressOf('mine') },
      origin,
    );
    expect([made.status, made.body.code]).toEqual([403, 'YOU_ARE_NOT_ALLOWED_TO_CREATE_A_NEW_ORGANIZATION']);
  }

  /** Invites `email` as the owner and answers the invitation's id and the link its email carries. */
  async function invite(email: string, role: 'member' | 'admin' = 'member') {
    const invited = await owner.api.raw.post<Invitation>(
      '/api/auth/organization/invite-member',
      { email, role },
      origin,
    );
    expect(invited.status).toBe(200);
    const mail = await waitFor(() => smtp.mails.find((candidate) => candidate.to.includes(email)), {
      what: `the invitation email to ${email}`,
    });
    const link = new URL(/https?:\/\/\S+\/invitations\/\S+/.exec(mail.text)![0]);
    return { id: invited.body.id, link, token: link.searchParams.get('token')! };
  }

  describe('SIGNUP=invite', () => {
    it('refuses a stranger an account and an organization', async () => {
      const signUp = await anonymous.raw.post<AuthError>(
        '/api/auth/sign-up/email',
        { email: addressOf('stranger'), password: 'a-long-password-1', name: 'Stranger' },
        origin,
      );
      expect([signUp.status, signUp.body.code]).toEqual([400, 'EMAIL_PASSWORD_SIGN_UP_DISABLED']);
      await expectNoOrganizationMadeBy(owner.api);
    });

    it("emails an invitation whose link makes the invitee's account, which then works in the organization", async () => {
      const email = addressOf('newcomer');
      const { id, link, token } = await invite(email, 'admin');
      // The link points at the console under PUBLIC_URL (the gateway's address here).
      expect(`${link.origin}${link.pathname}`).toBe(`${stack.baseUrl}/invitations/${id}`);
      // Emailed invitations are never shown in the console: only the mailbox gets the token.
      expect((await owner.api.raw.get(`/api/auth/invitation/link?invitationId=${id}`)).body).toEqual({
        emailed: true,
        link: null,
      });

      const preview = await anonymous.raw.get<InvitationPreview>(
        `/api/auth/invitation/preview?invitationId=${id}&token=${token}`,
      );
      expect(preview.body).toEqual({
        email,
        role: 'admin',
        organizationName: 'Acme',
        expiresAt: expect.any(String),
        hasAccount: false,
        canCreateAccount: true,
      });
      const signUp = await anonymous.raw.post<SignedUp>(
        '/api/auth/invitation/sign-up',
        { invitationId: id, token, name: 'Newcomer', password: 'newcomer-password-1' },
        origin,
      );
      expect(signUp.status).toBe(200);
      const invitee = anonymous.withToken(signUp.body.token);
      // An account, not yet in any organization: the gateway caches this refusal.
      expect((await invitee.GET('/api/v1/projects')).error?.error.code).toBe('no_active_organization');

      const accepted = await invitee.raw.post(
        '/api/auth/organization/accept-invitation',
        { invitationId: id },
        origin,
      );
      expect(accepted.status).toBe(200);
      // Accepting switched the session's organization and told the gateway so: no wait for the cache.
      const created = expectData(
        await invitee.POST('/api/v1/projects', { body: { name: 'First project' } }),
        201,
      );
      expect(created.createdBy).toBe(signUp.body.user.id);
      expect(
        await statusOf(org.api.GET('/api/v1/projects/{id}', { params: { path: { id: created.id } } })),
      ).toBe(200);
      const members = (await owner.api.raw.get<Members>('/api/auth/organization/list-members')).body.members;
      expect(members.find((row) => row.userId === signUp.body.user.id)?.role).toBe('admin');
      // The link is spent.
      expect(
        (await anonymous.raw.get<AuthError>(`/api/auth/invitation/preview?invitationId=${id}&token=${token}`))
          .body.code,
      ).toBe('INVITATION_NOT_FOUND');
      // And the new member signs in with the password they chose.
      expect(await signIn(stack.description, email, 'newcomer-password-1')).toEqual(expect.any(String));
    });

    it('makes the account from the console, through the emailed link, and lands in the organization', async () => {
      const email = addressOf('console');
      const { link } = await invite(email);
      const page = await browser.newPage();
      await page.goto(`${link.pathname}${link.search}`);
      await page.getByRole('heading', { name: 'Join Acme' }).waitFor();
      await page.getByText(`Make your account for ${email}.`).waitFor();
      expect(await browser.accessibilityViolations(page)).toEqual([]);
      await browser.screenshot(page, 'invitation-account');
      await page.getByLabel('Your name').fill('Console Newcomer');
      await page.getByLabel('Choose a password').fill('console-password-1');
      await page.getByRole('button', { name: 'Create account and join' }).click();
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
      expect(await page.getByLabel('Organization').inputValue()).toBe(org.organizationId);
      await page.getByText(`${email} · member`).waitFor();
      await page.context().close();
    });

    it("lets no member invite, and nobody use an invitation without its link's token", async () => {
      const member = await createMember(stack.description, org.organizationId, 'member');
      const refused = await member.api.raw.post<AuthError>(
        '/api/auth/organization/invite-member',
        { email: addressOf('friend'), role: 'member' },
        origin,
      );
      expect([refused.status, refused.body.code]).toEqual([
        403,
        'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
      ]);

      const email = addressOf('boss');
      const { id, token } = await invite(email, 'admin');
      // Members see the invitation and its id, but not its token.
      const listed = await member.api.raw.get<Invitation[]>('/api/auth/organization/list-invitations');
      expect(listed.body.map((row) => row.id)).toContain(id);
      const link = await member.api.raw.get<AuthError>(`/api/auth/invitation/link?invitationId=${id}`);
      expect([link.status, link.body.code]).toEqual([
        403,
        'YOU_ARE_NOT_ALLOWED_TO_INVITE_USERS_TO_THIS_ORGANIZATION',
      ]);
      const forged = `${token.slice(0, -2)}AA`;
      for (const attempt of [
        anonymous.raw.get<AuthError>(`/api/auth/invitation/preview?invitationId=${id}&token=${forged}`),
        anonymous.raw.post<AuthError>(
          '/api/auth/invitation/sign-up',
          { invitationId: id, token: forged, name: 'Boss', password: 'taken-over-password' },
          origin,
        ),
        member.api.raw.post<AuthError>(
          '/api/auth/invitation/confirm-email',
          { invitationId: id, token: forged },
          origin,
        ),
      ]) {
        const answer = await attempt;
        expect([answer.status, answer.body.code]).toEqual([400, 'INVITATION_NOT_FOUND']);
      }
      const taken = await member.api.raw.post<AuthError>(
        '/api/auth/organization/accept-invitation',
        { invitationId: id },
        origin,
      );
      expect([taken.status, taken.body.code]).toEqual([403, 'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION']);
      // Even the right token makes nobody else the recipient.
      const confirmed = await member.api.raw.post<AuthError>(
        '/api/auth/invitation/confirm-email',
        { invitationId: id, token },
        origin,
      );
      expect([confirmed.status, confirmed.body.code]).toEqual([
        403,
        'YOU_ARE_NOT_THE_RECIPIENT_OF_THE_INVITATION',
      ]);
      expect(
        (await anonymous.raw.get(`/api/auth/invitation/preview?invitationId=${id}&token=${token}`)).status,
      ).toBe(200);
    });

    describe('telling gateways to forget cached credentials', () => {
      let nats: NatsConnection;
      const notices: Array<{ userIds?: string[]; keyIds?: string[]; all?: boolean }> = [];

      beforeAll(async () => {
        nats = await connectAs(stack.description, 'gateway');
        nats.subscribe(`${stack.env.NATS_SUBJECT_PREFIX}${CatalogSubjects.authInvalidated.bare}`, {
          callback: (_error, message) => {
            notices.push(message.json());
          },
        });
        await nats.flush();
      });

      afterAll(async () => {
        await nats?.close();
      });

      it('happens after a change to a credential, and never after a read or a refused call', async () => {
        const member = await createMember(stack.description, org.organizationId, 'member');
        expect(await statusOf(member.api.GET('/api/v1/projects'))).toBe(200);
        const before = notices.length;
        for (let round = 0; round < 10; round += 1) {
          for (const read of [
            owner.api.raw.get('/api/auth/get-session'),
            owner.api.raw.get('/api/auth/organization/list'),
            owner.api.raw.get('/api/auth/organization/get-full-organization'),
            owner.api.raw.get('/api/auth/organization/list-members'),
            owner.api.raw.get('/api/auth/organization/list-invitations'),
            owner.api.raw.get('/api/auth/organization/get-active-member'),
            owner.api.raw.post('/api/auth/organization/check-slug', { slug: addressOf('slug') }, origin),
            owner.api.raw.post(
              '/api/auth/organization/has-permission',
              { permissions: { member: ['create'] } },
              origin,
            ),
            // A change that touches no credential, and one refused.
            owner.api.raw.post('/api/auth/organization/update', { data: { name: 'Acme' } }, origin),
            owner.api.raw.post(
              '/api/auth/organization/remove-member',
              { memberIdOrEmail: addressOf('nobody') },
              origin,
            ),
            // A stranger's sign-out, answered 200 by better-auth with no session to end.
            anonymous.raw.post('/api/auth/sign-out', {}, origin),
          ]) {
            expect((await read).status).toBeLessThan(500);
          }
        }
        const removed = await owner.api.raw.post(
          '/api/auth/organization/remove-member',
          { memberIdOrEmail: member.email },
          origin,
        );
        expect(removed.status).toBe(200);
        // Catalog publishes in order on one connection: once the removal's notice is here, any a read
        // had sent would be here too.
        await waitFor(() => (notices.length > before ? true : undefined), { what: "the removal's notice" });
        expect(notices.slice(before)).toEqual([
          // Whose credentials are stale: the owner who removed and the member removed, nobody else's.
          { userIds: expect.arrayContaining([member.userId]), keyIds: [] },
        ]);
        expect(notices[before]!.all).toBeUndefined();
        const response = await member.api.GET('/api/v1/projects');
        expect([response.response.status, response.error?.error.code]).toEqual([403, 'forbidden']);
      });
    });
  });

  describe('SIGNUP=open', () => {
    let ownerApi: ApiClient;

    beforeAll(async () => {
      ownerApi = await restartIn('open');
    }, 90_000);

    it('lets a stranger sign up, into no organization, and make none', async () => {
      const signUp = await anonymous.raw.post<SignedUp>(
        '/api/auth/sign-up/email',
        { email: addressOf('stranger'), password: 'a-long-password-1', name: 'Stranger' },
        origin,
      );
      expect(signUp.status).toBe(200);
      const stranger = anonymous.withToken(signUp.body.token);
      const projects = await stranger.GET('/api/v1/projects');
      expect([projects.response.status, projects.error?.error.code]).toEqual([403, 'no_active_organization']);
      await expectNoOrganizationMadeBy(stranger);
      expect((await stranger.raw.get('/api/auth/organization/list')).body).toEqual([]);
    });

    it('offers sign-up on the console, which lands in no organization until one invites them', async () => {
      const email = addressOf('console-open');
      const page = await browser.newPage();
      await page.goto(`${stack.baseUrl}/sign-in`);
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByRole('heading', { name: 'Create a Flowmesh account' }).waitFor();
      expect(await browser.accessibilityViolations(page)).toEqual([]);
      await page.getByLabel('Your name').fill('Open Newcomer');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Choose a password').fill('open-password-1');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('You are in no organization yet.', { exact: false }).waitFor();
      await page.context().close();
    });

    it("joins someone who signed up to an organization only once the invitation's link proves their address", async () => {
      const email = addressOf('early');
      const signUp = await anonymous.raw.post<SignedUp>(
        '/api/auth/sign-up/email',
        { email, password: 'a-long-password-1', name: 'Early' },
        origin,
      );
      const early = anonymous.withToken(signUp.body.token);
      const invited = await ownerApi.raw.post<Invitation>(
        '/api/auth/organization/invite-member',
        { email, role: 'member' },
        origin,
      );
      const mail = await waitFor(() => smtp.mails.find((candidate) => candidate.to.includes(email)), {
        what: 'the invitation email',
      });
      const token = new URL(/https?:\/\/\S+\/invitations\/\S+/.exec(mail.text)![0]).searchParams.get(
        'token',
      )!;
      // Anyone may sign up with any address: that alone proves nothing.
      const unproven = await early.raw.post<AuthError>(
        '/api/auth/organization/accept-invitation',
        { invitationId: invited.body.id },
        origin,
      );
      expect([unproven.status, unproven.body.code]).toEqual([
        403,
        'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION',
      ]);
      const preview = await anonymous.raw.get<InvitationPreview>(
        `/api/auth/invitation/preview?invitationId=${invited.body.id}&token=${token}`,
      );
      expect(preview.body).toMatchObject({ hasAccount: true, canCreateAccount: false });

      const confirmed = await early.raw.post(
        '/api/auth/invitation/confirm-email',
        { invitationId: invited.body.id, token },
        origin,
      );
      expect(confirmed.status).toBe(200);
      const accepted = await early.raw.post(
        '/api/auth/organization/accept-invitation',
        { invitationId: invited.body.id },
        origin,
      );
      expect(accepted.status).toBe(200);
      expect(await statusOf(early.GET('/api/v1/projects'))).toBe(200);
    });
  });

  describe('SIGNUP=invite without a mail server', () => {
    let ownerApi: ApiClient;

    beforeAll(async () => {
      delete stack.description.env.SMTP_URL;
      ownerApi = await restartIn('invite');
    }, 90_000);

    it("lets a link an inviter handed over answer its own invitation, and no other organization's", async () => {
      const email = addressOf('ceo');
      // Another organization invites the address first, as an admin.
      const other = await createOrganization(stack.description, { name: 'Other' });
      const otherOwner = await createMember(stack.description, other.organizationId, 'owner');
      const otherApi = anonymous.withToken(
        await signIn(stack.description, otherOwner.email, otherOwner.password),
      );
      const theirs = await otherApi.raw.post<Invitation>(
        '/api/auth/organization/invite-member',
        { email, role: 'admin' },
        origin,
      );
      expect(theirs.status).toBe(200);
      // Acme's owner invites it too and, with no mail server, is shown the link.
      const ours = await ownerApi.raw.post<Invitation>(
        '/api/auth/organization/invite-member',
        { email, role: 'member' },
        origin,
      );
      const { link } = (
        await ownerApi.raw.get<{ link: string }>(`/api/auth/invitation/link?invitationId=${ours.body.id}`)
      ).body;
      const token = new URL(link).searchParams.get('token')!;
      // Whoever holds that link makes the account for the address, and is in Acme only.
      const signUp = await anonymous.raw.post<SignedUp>(
        '/api/auth/invitation/sign-up',
        { invitationId: ours.body.id, token, name: 'Not the CEO', password: 'holder-password-1' },
        origin,
      );
      expect(signUp.status).toBe(200);
      const holder = anonymous.withToken(signUp.body.token);

      // The link proves no address: the other organization's invitation stays closed to them.
      const attempts = await Promise.all([
        holder.raw.post<AuthError>(
          '/api/auth/invitation/confirm-email',
          { invitationId: ours.body.id, token },
          origin,
        ),
        holder.raw.post<AuthError>(
          '/api/auth/organization/accept-invitation',
          { invitationId: theirs.body.id },
          origin,
        ),
        holder.raw.post<AuthError>(
          '/api/auth/invitation/answer',
          { invitationId: theirs.body.id, token, accept: true },
          origin,
        ),
      ]);
      expect(attempts.map((answer) => [answer.status, answer.body.code])).toEqual([
        [403, 'LINK_NOT_EMAILED'],
        [403, 'EMAIL_VERIFICATION_REQUIRED_BEFORE_ACCEPTING_OR_REJECTING_INVITATION'],
        [400, 'INVITATION_NOT_FOUND'],
      ]);
      // It answers its own, and its holder is in Acme.
      const joined = await holder.raw.post(
        '/api/auth/invitation/answer',
        { invitationId: ours.body.id, token, accept: true },
        origin,
      );
      expect(joined.body).toEqual({ status: 'accepted' });
      expect(await statusOf(holder.GET('/api/v1/projects'))).toBe(200);
      const otherMembers = (await otherApi.raw.get<Members>('/api/auth/organization/list-members')).body
        .members;
      expect(otherMembers.map((row) => row.userId)).not.toContain(signUp.body.user.id);
    });
  });
});
