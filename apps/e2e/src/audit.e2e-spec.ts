import { randomUUID } from 'node:crypto';

import type { AuditEntryDto, CreatedApiKeyDto } from '#contracts';
import {
  createMember,
  createOrganization,
  edge,
  expectData,
  type MemberFixture,
  nodes,
  type OrganizationFixture,
  type RawResponse,
  runningStack,
  runReaches,
} from '#testing';

const stack = runningStack();

const USER_AGENT = 'audit-e2e/1.0 (+flowmesh)';
/** What the gateway sees of a client on this machine. */
const LOOPBACK = /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/;

type AuditPage = { data: AuditEntryDto[]; nextCursor: string | null };

/**
 * The audit log (docs/audit.md): every change made through the API is found in `GET /api/v1/audit`
 * with who made it, from where and under which request id; only owners, admins and keys read it; an
 * organization sees only its own; no secret is ever in it; pages across the services are ordered and
 * complete.
 */
describe('audit log (extension beyond the contract)', () => {
  let org: OrganizationFixture;
  let other: OrganizationFixture;
  let owner: MemberFixture;
  let member: MemberFixture;
  /** A member whose role is changed, then who is removed. */
  let leaver: MemberFixture;
  /** The request id each change was sent with, by a name the test gives it. */
  const requests = new Map<string, string>();
  const ids: Record<string, string> = {};
  /** Every secret an answer showed once: none may be in the log. */
  const secrets: string[] = [];

  /** A change made by the owner, with a request id and a User-Agent the test can look for. */
  async function change<T>(
    name: string,
    method: 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    status = method === 'POST' ? 201 : 200,
    headers: Record<string, string> = {},
  ): Promise<T> {
    const requestId = randomUUID();
    requests.set(name, requestId);
    const answer = await owner.api.raw.request<T>(method, path, body, {
      'user-agent': USER_AGENT,
      'x-request-id': requestId,
      ...headers,
    });
    expect({ name, status: answer.status, body: answer.body }).toMatchObject({ name, status });
    expect(answer.headers.get('x-request-id')).toBe(requestId);
    return answer.body;
  }

  const audit = (query = '', api = owner.api): Promise<RawResponse<AuditPage>> =>
    api.raw.get<AuditPage>(`/api/v1/audit${query}`);

  async function allEntries(query = '', limit = 100): Promise<AuditEntryDto[]> {
    const entries: AuditEntryDto[] = [];
    let cursor: string | null = null;
    do {
      const separator = query === '' ? '?' : '&';
      const page: RawResponse<AuditPage> = await audit(
        `${query}${separator}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect({ query, status: page.status, body: page.status === 200 ? null : page.body }).toEqual({
        query,
        status: 200,
        body: null,
      });
      entries.push(...page.body.data);
      cursor = page.body.nextCursor;
    } while (cursor);
    return entries;
  }

  beforeAll(async () => {
    [org, other] = await Promise.all([createOrganization(stack), createOrganization(stack)]);
    [owner, member, leaver] = await Promise.all([
      createMember(stack, org.organizationId, 'owner'),
      createMember(stack, org.organizationId, 'member'),
      createMember(stack, org.organizationId, 'member'),
    ]);

    // Catalog: projects, skills, keys.
    ids.project = (
      await change<{ id: string }>('project.created', 'POST', '/api/v1/projects', { name: 'Audited' })
    ).id;
    await change('project.updated', 'PATCH', `/api/v1/projects/${ids.project}`, {
      description: 'now described',
    });
    ids.skill = (
      await change<{ id: string }>('skill.created', 'POST', '/api/v1/skills', {
        name: 'audited-skill',
        description: 'For the audit.',
        instructions: 'Nothing.',
      })
    ).id;
    await change('skill.updated', 'PATCH', `/api/v1/skills/${ids.skill}`, { description: 'Changed.' });
    await change('skill.deleted', 'DELETE', `/api/v1/skills/${ids.skill}`);
    const key = await change<CreatedApiKeyDto>('key.created', 'POST', '/app/keys', { name: 'audited key' });
    ids.key = key.id;
    secrets.push(key.key);
    await change('key.deleted', 'DELETE', `/app/keys/${ids.key}`);

    // Workflow: create, update, publish, pause, resume.
    const diagram = {
      nodes: [nodes.trigger('t'), nodes.delay('wait', 3_600)],
      edges: [edge('e1', 't', 'wait')],
    };
    ids.workflow = (
      await change<{ id: string }>('workflow.created', 'POST', `/api/v1/projects/${ids.project}/workflows`, {
        name: 'Audited flow',
        diagram,
      })
    ).id;
    await change('workflow.updated', 'PATCH', `/api/v1/workflows/${ids.workflow}`, {
      description: 'described',
    });
    await change('workflow.published', 'POST', `/api/v1/workflows/${ids.workflow}/publish`, {});
    await change('workflow.paused', 'POST', `/api/v1/workflows/${ids.workflow}/pause`, undefined, 200);
    await change('workflow.resumed', 'POST', `/api/v1/workflows/${ids.workflow}/resume`, undefined, 200);

    // Runner: a run waiting on its delay is paused, resumed, cancelled, then rerun.
    ids.run = expectData(
      await owner.api.POST('/api/v1/workflows/{id}/runs', {
        params: { path: { id: ids.workflow } },
        body: {},
      }),
      201,
    ).id;
    await runReaches(owner.api, ids.run, ['waiting']);
    await change('run.paused', 'POST', `/api/v1/runs/${ids.run}/pause`, undefined, 200);
    await change('run.resumed', 'POST', `/api/v1/runs/${ids.run}/resume`, undefined, 200);
    await change('run.cancelled', 'POST', `/api/v1/runs/${ids.run}/cancel`, { reason: 'audit test' }, 200);
    ids.rerun = (await change<{ id: string }>('run.rerun', 'POST', `/api/v1/runs/${ids.run}/rerun`, {})).id;
    await owner.api.POST('/api/v1/runs/{id}/cancel', { params: { path: { id: ids.rerun } }, body: {} });

    // Agent, database and events: agents, databases, connections.
    ids.agent = (
      await change<{ id: string }>('agent.created', 'POST', '/api/v1/agents', {
        name: 'audited-agent',
        description: 'For the audit.',
      })
    ).id;
    await change('agent.updated', 'PATCH', `/api/v1/agents/${ids.agent}`, { description: 'Changed.' });
    await change('agent.deleted', 'DELETE', `/api/v1/agents/${ids.agent}`);
    ids.database = (
      await change<{ id: string }>('database.created', 'POST', '/api/v1/databases', { name: 'audited-db' })
    ).id;
    await change('database.updated', 'PATCH', `/api/v1/databases/${ids.database}`, {
      description: 'Changed.',
    });
    await change('database.deleted', 'DELETE', `/api/v1/databases/${ids.database}`);
    const connection = await change<{ id: string; secret?: string }>(
      'connection.created',
      'POST',
      '/app/connections',
      {
        integrationId: 'webhook',
        name: 'audited hook',
      },
    );
    ids.connection = connection.id;
    secrets.push(connection.secret!);
    const rotated = await change<{ sendingSecret: string }>(
      'connection.sending_secret_rotated',
      'POST',
      `/app/connections/${ids.connection}/sending-secret`,
    );
    secrets.push(rotated.sendingSecret);
    // A notification endpoint through it, whose URL's path is a secret of the receiver's.
    const endpoint = await change<{ id: string; secret: string }>(
      'notification_endpoint.created',
      'POST',
      '/api/v1/notification-endpoints',
      {
        name: 'audited alerts',
        connectionId: ids.connection,
        url: 'https://alerts.example.com/t0ken-in-path',
      },
    );
    ids.notificationEndpoint = endpoint.id;
    secrets.push(endpoint.secret, 't0ken-in-path');
    const newSecret = await change<{ secret: string }>(
      'notification_endpoint.rotated',
      'POST',
      `/api/v1/notification-endpoints/${ids.notificationEndpoint}/secret`,
    );
    secrets.push(newSecret.secret);
    await change('notification_endpoint.deleted', 'DELETE', `/api/v1/notification-endpoints/${endpoint.id}`);
    await change('connection.deleted', 'DELETE', `/app/connections/${ids.connection}`);

    // Members: a role changed, a member removed (better-auth's routes, with the Origin it checks).
    const members = await owner.api.raw.get<{ members: Array<{ id: string; userId: string }> }>(
      '/api/auth/organization/list-members',
    );
    ids.member = members.body.members.find((row) => row.userId === leaver.userId)!.id;
    const origin = { origin: stack.baseUrl };
    await change(
      'member.role_changed',
      'POST',
      '/api/auth/organization/update-member-role',
      {
        memberId: ids.member,
        role: 'admin',
      },
      200,
      origin,
    );
    await change(
      'member.removed',
      'POST',
      '/api/auth/organization/remove-member',
      {
        memberIdOrEmail: leaver.email,
      },
      200,
      origin,
    );

    // Deletes last.
    await change('workflow.deleted', 'DELETE', `/api/v1/workflows/${ids.workflow}`);
    await change('project.deleted', 'DELETE', `/api/v1/projects/${ids.project}`);
  }, 120_000);

  afterAll(async () => {
    // Nothing to undo: the organizations are the test's own.
  });

  it('records every change with who, what, when, from where and the request id', async () => {
    const entries = await allEntries();
    const expected: Record<string, { type: string; id: () => string }> = {
      'project.created': { type: 'project', id: () => ids.project! },
      'project.updated': { type: 'project', id: () => ids.project! },
      'skill.created': { type: 'skill', id: () => ids.skill! },
      'skill.updated': { type: 'skill', id: () => ids.skill! },
      'skill.deleted': { type: 'skill', id: () => ids.skill! },
      'key.created': { type: 'key', id: () => ids.key! },
      'key.deleted': { type: 'key', id: () => ids.key! },
      'workflow.created': { type: 'workflow', id: () => ids.workflow! },
      'workflow.updated': { type: 'workflow', id: () => ids.workflow! },
      'workflow.published': { type: 'workflow', id: () => ids.workflow! },
      'workflow.paused': { type: 'workflow', id: () => ids.workflow! },
      'workflow.resumed': { type: 'workflow', id: () => ids.workflow! },
      'run.paused': { type: 'run', id: () => ids.run! },
      'run.resumed': { type: 'run', id: () => ids.run! },
      'run.cancelled': { type: 'run', id: () => ids.run! },
      'run.rerun': { type: 'run', id: () => ids.run! },
      'agent.created': { type: 'agent', id: () => ids.agent! },
      'agent.updated': { type: 'agent', id: () => ids.agent! },
      'agent.deleted': { type: 'agent', id: () => ids.agent! },
      'database.created': { type: 'database', id: () => ids.database! },
      'database.updated': { type: 'database', id: () => ids.database! },
      'database.deleted': { type: 'database', id: () => ids.database! },
      'connection.created': { type: 'connection', id: () => ids.connection! },
      'connection.sending_secret_rotated': { type: 'connection', id: () => ids.connection! },
      'connection.deleted': { type: 'connection', id: () => ids.connection! },
      'notification_endpoint.created': { type: 'notification_endpoint', id: () => ids.notificationEndpoint! },
      'notification_endpoint.rotated': { type: 'notification_endpoint', id: () => ids.notificationEndpoint! },
      'notification_endpoint.deleted': { type: 'notification_endpoint', id: () => ids.notificationEndpoint! },
      'member.role_changed': { type: 'member', id: () => ids.member! },
      'member.removed': { type: 'member', id: () => ids.member! },
      'workflow.deleted': { type: 'workflow', id: () => ids.workflow! },
      'project.deleted': { type: 'project', id: () => ids.project! },
    };
    for (const [action, resource] of Object.entries(expected)) {
      const requestId = requests.get(action);
      const found = entries.filter((entry) => entry.requestId === requestId);
      expect({ action, found: found.length }).toEqual({ action, found: 1 });
      const entry = found[0]!;
      expect(entry).toMatchObject({
        action,
        actor: { type: 'member', id: owner.userId },
        resource: { type: resource.type, id: resource.id() },
        userAgent: USER_AGENT,
        requestId,
      });
      expect(entry.clientAddress).toMatch(LOOPBACK);
      expect(Date.parse(entry.at)).not.toBeNaN();
    }
    expect(entries.find((entry) => entry.action === 'workflow.published')?.details).toMatchObject({
      version: 1,
    });
    expect(entries.find((entry) => entry.action === 'run.rerun')?.details).toMatchObject({
      newRunId: ids.rerun,
    });
    expect(entries.find((entry) => entry.action === 'project.created')?.resource.name).toBe('Audited');
    expect(entries.find((entry) => entry.action === 'notification_endpoint.created')?.details).toEqual({
      connectionId: ids.connection,
      origin: 'https://alerts.example.com',
    });
    expect(entries.find((entry) => entry.action === 'member.role_changed')).toMatchObject({
      resource: { name: leaver.email },
      details: { role: 'admin' },
    });
  });

  it('names an organization key as the actor of what it changed', async () => {
    const requestId = randomUUID();
    const made = await org.api.raw.post<{ id: string }>(
      '/api/v1/projects',
      { name: 'By key' },
      { 'x-request-id': requestId },
    );
    expect(made.status).toBe(201);
    const [entry] = (await allEntries(`?resourceId=${made.body.id}`)).filter(
      (e) => e.action === 'project.created',
    );
    expect(entry).toMatchObject({ actor: { type: 'key' }, requestId });
    expect(entry!.actor.id).toEqual(expect.any(String));
  });

  it('is read by owners and keys; a member is refused', async () => {
    expect((await audit('', member.api)).status).toBe(403);
    expect((await audit('', member.api)).body).toMatchObject({ error: { code: 'forbidden' } });
    expect((await audit('', org.api)).status).toBe(200);
  });

  it('never shows another organization its entries', async () => {
    const theirs = await other.api.raw.get<AuditPage>('/api/v1/audit?limit=100');
    expect(theirs.status).toBe(200);
    const ours = new Set(Object.values(ids));
    expect(theirs.body.data.filter((entry) => ours.has(entry.resource.id))).toEqual([]);
    const ourRequests = new Set(requests.values());
    expect(theirs.body.data.filter((entry) => ourRequests.has(entry.requestId ?? ''))).toEqual([]);
  });

  it('holds no secret', async () => {
    const everything = JSON.stringify(await allEntries());
    expect(secrets).toHaveLength(6);
    // Nor the organization's id, which no answer of the API shows.
    expect(everything).not.toContain(org.organizationId);
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(10);
      expect(everything).not.toContain(secret);
    }
  });

  it('filters by action, action prefix, actor, resource and time', async () => {
    const published = await allEntries('?action=workflow.published');
    expect(published.map((entry) => entry.resource.id)).toEqual([ids.workflow]);
    const runs = await allEntries('?action=run.');
    expect(new Set(runs.map((entry) => entry.action))).toEqual(
      new Set(['run.paused', 'run.resumed', 'run.cancelled', 'run.rerun']),
    );
    const byMember = await allEntries(`?actorType=member&actorId=${owner.userId}`);
    expect(byMember.every((entry) => entry.actor.id === owner.userId)).toBe(true);
    const madeByMember = new Set(byMember.map((entry) => entry.requestId));
    expect([...requests.values()].filter((requestId) => !madeByMember.has(requestId))).toEqual([]);
    expect(await allEntries(`?actorType=member&actorId=${member.userId}`)).toEqual([]);
    const ofWorkflow = await allEntries(`?resourceType=workflow&resourceId=${ids.workflow}`);
    expect(ofWorkflow.map((entry) => entry.action).sort()).toEqual(
      ['created', 'updated', 'published', 'paused', 'resumed', 'deleted'].map((a) => `workflow.${a}`).sort(),
    );
    const all = await allEntries();
    const middle = all[Math.floor(all.length / 2)]!;
    const before = await allEntries(`?to=${encodeURIComponent(middle.at)}`);
    const after = await allEntries(`?from=${encodeURIComponent(middle.at)}`);
    expect(before.every((entry) => entry.at < middle.at)).toBe(true);
    expect(after.every((entry) => entry.at >= middle.at)).toBe(true);
    expect(before.length + after.length).toBe(all.length);
  });

  it('pages across the services newest first, every entry once', async () => {
    const whole = await allEntries('', 100);
    expect(whole.length).toBeGreaterThan(requests.size);
    const sorted = [...whole].sort((a, b) => (a.at === b.at ? (a.id < b.id ? 1 : -1) : a.at < b.at ? 1 : -1));
    expect(whole.map((entry) => entry.id)).toEqual(sorted.map((entry) => entry.id));
    for (const limit of [1, 3, 7]) {
      const paged = await allEntries('', limit);
      expect({ limit, ids: paged.map((entry) => entry.id) }).toEqual({
        limit,
        ids: whole.map((entry) => entry.id),
      });
    }
    const first = await audit('?limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.nextCursor).toEqual(expect.any(String));
  });

  it('answers 400 for a bad query', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?from=yesterday',
      '?cursor=not-a-cursor',
      '?actorType=robot',
      '?action=Not%20An%20Action',
    ]) {
      const answer = await audit(query);
      expect({ query, status: answer.status }).toEqual({ query, status: 400 });
      expect(answer.body).toMatchObject({ error: { code: 'invalid_request' } });
    }
  });
});
