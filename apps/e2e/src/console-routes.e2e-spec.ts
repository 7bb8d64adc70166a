import type { CatalogSubjects, CreatedApiKeyDto, DeletedDto, ReplyOf } from '#contracts';
import {
  ApiClient,
  chainOf,
  createMember,
  createOrganization,
  createProject,
  createWorkflow,
  type ErrorBody,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  publishWorkflow,
  runningStack,
  statusOf,
} from '#testing';

type KeyList = ReplyOf<typeof CatalogSubjects.keysList>;

/**
 * The routes added for the console, over HTTP: the API keys page's `/app/keys` (owners and admins,
 * signed in, of their own organization) and a published version with its diagram.
 */
describe('console routes', () => {
  const stack = runningStack();
  // One organization with a member of each role, and another with its owner (each made by the CLI).
  let org: OrganizationFixture;
  let owner: MemberFixture;
  let admin: MemberFixture;
  let member: MemberFixture;
  let other: OrganizationFixture;
  let otherOwner: MemberFixture;

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    [owner, admin, member, otherOwner] = await Promise.all([
      createMember(stack, org.organizationId, 'owner'),
      createMember(stack, org.organizationId, 'admin'),
      createMember(stack, org.organizationId, 'member'),
      createMember(stack, other.organizationId, 'owner'),
    ]);
  });

  describe('/app/keys', () => {
    it('lets an owner and an admin list, create and revoke keys; the key is answered once and works', async () => {
      const created = await admin.api.raw.post<CreatedApiKeyDto>('/app/keys', { name: 'reporting' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'reporting',
        start: expect.stringMatching(/^fm_/),
        createdAt: expect.any(String),
        lastUsedAt: null,
        key: expect.stringMatching(/^fm_/),
      });
      expect(created.body.key.startsWith(created.body.start!)).toBe(true);
      const key = new ApiClient(stack.baseUrl, created.body.key);
      expect(await statusOf(key.GET('/api/v1/projects'))).toBe(200);

      const listed = await owner.api.raw.get<KeyList>('/app/keys');
      expect(listed.status).toBe(200);
      const names = listed.body.data.map((item) => item.name);
      // The operator's key of `org create` and the new one, newest first; never the key itself.
      expect(names).toEqual(['reporting', 'admin-cli']);
      expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

      expect((await owner.api.raw.delete<DeletedDto>(`/app/keys/${created.body.id}`)).body).toEqual({
        deleted: true,
      });
      // Every gateway forgets the key at once.
      expect(await statusOf(key.GET('/api/v1/projects'))).toBe(401);
      const again = await owner.api.raw.delete<ErrorBody>(`/app/keys/${created.body.id}`);
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe('not_found');
    });

    it('refuses a member and an organization key with forbidden, and validates the name', async () => {
      for (const answer of [
        await member.api.raw.get<ErrorBody>('/app/keys'),
        await member.api.raw.post<ErrorBody>('/app/keys', { name: 'mine' }),
        await org.api.raw.get<ErrorBody>('/app/keys'),
        await org.api.raw.post<ErrorBody>('/app/keys', { name: 'mine' }),
      ]) {
        expect(answer.status).toBe(403);
        expect(answer.body.error.code).toBe('forbidden');
      }
      const invalid = await owner.api.raw.post<ErrorBody>('/app/keys', { name: '' });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.details?.issues?.[0]?.path).toBe('name');
    });

    it("keeps each organization to its own keys: another's is not found", async () => {
      const created = await owner.api.raw.post<CreatedApiKeyDto>('/app/keys', { name: 'first' });
      const attempt = await otherOwner.api.raw.delete<ErrorBody>(`/app/keys/${created.body.id}`);
      expect(attempt.status).toBe(404);
      expect(attempt.body.error.code).toBe('not_found');
      const listed = await otherOwner.api.raw.get<KeyList>('/app/keys');
      expect(listed.body.data.map((item) => item.name)).toEqual(['admin-cli']);
      const key = new ApiClient(stack.baseUrl, created.body.key);
      expect(await statusOf(key.GET('/api/v1/projects'))).toBe(200);
    });
  });

  describe('GET /api/v1/workflows/{id}/versions/{number}', () => {
    it('answers a version with the diagram it froze, not the draft', async () => {
      const projectId = await createProject(org.api, 'Versions');
      const first = chainOf(nodes.trigger('start'), nodes.delay('wait', 5));
      const id = await createWorkflow(
        org.api,
        projectId,
        { ...first, nodes: first.nodes.map((node) => ({ ...node, position: { x: 1, y: 2 } })) },
        { name: 'Frozen', publish: false },
      );
      await publishWorkflow(org.api, id, { timeZone: 'Asia/Tokyo' });
      await org.api.PATCH('/api/v1/workflows/{id}', {
        params: { path: { id } },
        body: { diagram: chainOf(nodes.trigger('start')) },
      });

      const versionOf = (api: ApiClient, number: string) =>
        api.GET('/api/v1/workflows/{id}/versions/{number}', { params: { path: { id, number } } });
      const version = await versionOf(org.api, '1');
      expect(version.response.status).toBe(200);
      expect(version.data).toMatchObject({ workflowId: id, number: 1, timeZone: 'Asia/Tokyo' });
      expect(version.data?.diagram.nodes.map((node) => node.id)).toEqual(['start', 'wait']);
      expect(version.data?.diagram.nodes[0]?.position).toEqual({ x: 1, y: 2 });

      const missing = await versionOf(org.api, '2');
      expect(missing.response.status).toBe(404);
      expect(missing.error?.error.code).toBe('not_found');
      const invalid = await versionOf(org.api, 'first');
      expect(invalid.response.status).toBe(400);
      expect(invalid.error?.error.details?.issues).toEqual([{ path: 'number', message: expect.any(String) }]);
      const foreign = await versionOf(other.api, '1');
      expect(foreign.response.status).toBe(404);
      expect(foreign.error?.error.code).toBe('workflow_not_found');
    });
  });
});
