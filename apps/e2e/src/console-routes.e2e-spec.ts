import {
  ApiClient,
  chainOf,
  createMember,
  createOrganization,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  runningStack,
} from '#testing';

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
      const created = await admin.api.post('/app/keys', { name: 'reporting' });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'reporting',
        start: expect.stringMatching(/^fm_/),
        createdAt: expect.any(String),
        lastUsedAt: null,
        key: expect.stringMatching(/^fm_/),
      });
      expect(created.body.key.startsWith(created.body.start)).toBe(true);
      const key = new ApiClient(stack.baseUrl, created.body.key);
      expect((await key.get('/api/v1/projects')).status).toBe(200);

      const listed = await owner.api.get('/app/keys');
      expect(listed.status).toBe(200);
      const names = listed.body.data.map((item: { name: string }) => item.name);
      // The operator's key of `org create` and the new one, newest first; never the key itself.
      expect(names).toEqual(['reporting', 'admin-cli']);
      expect(JSON.stringify(listed.body)).not.toContain(created.body.key);

      expect((await owner.api.delete(`/app/keys/${created.body.id}`)).body).toEqual({ deleted: true });
      // Every gateway forgets the key at once.
      expect((await key.get('/api/v1/projects')).status).toBe(401);
      const again = await owner.api.delete(`/app/keys/${created.body.id}`);
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe('not_found');
    });

    it('refuses a member and an organization key with forbidden, and validates the name', async () => {
      for (const answer of [
        await member.api.get('/app/keys'),
        await member.api.post('/app/keys', { name: 'mine' }),
        await org.api.get('/app/keys'),
        await org.api.post('/app/keys', { name: 'mine' }),
      ]) {
        expect(answer.status).toBe(403);
        expect(answer.body.error.code).toBe('forbidden');
      }
      const invalid = await owner.api.post('/app/keys', { name: '' });
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.details.issues[0].path).toBe('name');
    });

    it("keeps each organization to its own keys: another's is not found", async () => {
      const created = await owner.api.post('/app/keys', { name: 'first' });
      const attempt = await otherOwner.api.delete(`/app/keys/${created.body.id}`);
      expect(attempt.status).toBe(404);
      expect(attempt.body.error.code).toBe('not_found');
      const listed = await otherOwner.api.get('/app/keys');
      expect(listed.body.data.map((item: { name: string }) => item.name)).toEqual(['admin-cli']);
      const key = new ApiClient(stack.baseUrl, created.body.key);
      expect((await key.get('/api/v1/projects')).status).toBe(200);
    });
  });

  describe('GET /api/v1/workflows/{id}/versions/{number}', () => {
    it('answers a version with the diagram it froze, not the draft', async () => {
      const project = await org.api.post('/api/v1/projects', { name: 'Versions' });
      const first = chainOf(nodes.trigger('start'), nodes.delay('wait', 5));
      const workflow = await org.api.post(`/api/v1/projects/${project.body.id}/workflows`, {
        name: 'Frozen',
        diagram: { ...first, nodes: first.nodes.map((node) => ({ ...node, position: { x: 1, y: 2 } })) },
      });
      const id = workflow.body.id as string;
      expect((await org.api.post(`/api/v1/workflows/${id}/publish`, { timeZone: 'Asia/Tokyo' })).status).toBe(
        201,
      );
      await org.api.patch(`/api/v1/workflows/${id}`, { diagram: chainOf(nodes.trigger('start')) });

      const version = await org.api.get(`/api/v1/workflows/${id}/versions/1`);
      expect(version.status).toBe(200);
      expect(version.body).toMatchObject({ workflowId: id, number: 1, timeZone: 'Asia/Tokyo' });
      expect(version.body.diagram.nodes.map((node: { id: string }) => node.id)).toEqual(['start', 'wait']);
      expect(version.body.diagram.nodes[0].position).toEqual({ x: 1, y: 2 });

      const missing = await org.api.get(`/api/v1/workflows/${id}/versions/2`);
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('not_found');
      const invalid = await org.api.get(`/api/v1/workflows/${id}/versions/first`);
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.details.issues).toEqual([{ path: 'number', message: expect.any(String) }]);
      const foreign = await other.api.get(`/api/v1/workflows/${id}/versions/1`);
      expect(foreign.status).toBe(404);
      expect(foreign.body.error.code).toBe('workflow_not_found');
    });
  });
});
