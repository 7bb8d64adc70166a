import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import { DataSource } from 'typeorm';

import { agentDataSource } from '../agent.data-source.js';
import type { DB } from '../agent.tables.js';
import type { ApprovalRecord, NewApproval } from './approval.mapper.js';
import { ApprovalRepository } from './approval.repository.js';

/** Who the decisions under test are recorded as made by. */
const CALLER = { organizationId: 'org-1', userId: 'user-1', keyId: null };

/** The claims approvals rest on, against a real Postgres database of their own. */
const database = scratchDatabase('fm_agent_spec');

function approval(runId: string, overrides: Partial<NewApproval> = {}): NewApproval {
  return {
    organizationId: 'org-1',
    runId,
    nodeId: 'ask',
    workflowId: 'wf-1',
    workflowName: 'Workflow',
    threadId: newId(),
    toolCallId: `call-${newId()}`,
    tool: 'http__request',
    action: 'http__request',
    connectionId: 'conn-1',
    input: { url: 'https://example.com' },
    ...overrides,
  };
}

describe('ApprovalRepository', () => {
  let dataSource: DataSource;
  let approvals: ApprovalRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(agentDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions({ ...agentDataSource(database.url), poolSize: 8 }));
    await dataSource.initialize();
    approvals = new ApprovalRepository(kyselyOn<DB>(dataSource));
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  it('lets exactly one decision win, and none after the approval expired', async () => {
    const [pending] = await approvals.insertPending([approval(newId())], 3600);
    const decisions = await Promise.all(
      (['approved', 'denied', 'approved', 'denied'] as const).map((status) =>
        approvals.decide(
          'org-1',
          pending!.runId,
          pending!.id,
          { status, reason: null, decidedBy: null },
          CALLER,
        ),
      ),
    );
    const winners = decisions.filter((decided): decided is ApprovalRecord => decided !== null);
    expect(winners).toHaveLength(1);
    expect((await approvals.find('org-1', pending!.id))!.status).toBe(winners[0]!.status);
    expect(
      await approvals.decide(
        'org-2',
        pending!.runId,
        pending!.id,
        {
          status: 'denied',
          reason: null,
          decidedBy: null,
        },
        CALLER,
      ),
    ).toBeNull();

    // Already past its deadline.
    const [expired] = await approvals.insertPending([approval(newId())], -1);
    expect(
      await approvals.decide(
        'org-1',
        expired!.runId,
        expired!.id,
        {
          status: 'approved',
          reason: null,
          decidedBy: null,
        },
        CALLER,
      ),
    ).toBeNull();
  });

  it('gives an approval to its decision or to its expiry, never both, when they race at the deadline', async () => {
    const runs = Array.from({ length: 20 }, () => newId());
    const opened = await approvals.insertPending(
      runs.map((runId) => approval(runId)),
      1,
    );
    const deadline = Math.min(...opened.map((one) => one.expiresAt.getTime()));
    // Both sides fire in a window around the deadline, so some decisions come before it and some after:
    // half a second each way, so a busy machine's late timers (three test files on two cores) still
    // leave decisions on both sides.
    const at = (offsetMs: number) =>
      new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, deadline + offsetMs - Date.now())));
    const outcomes = await Promise.all(
      opened.map(async (one, index) => {
        const offset = (index % 10) * 100 - 500;
        const [decided, expired] = await Promise.all([
          at(offset).then(() =>
            approvals.decide(
              'org-1',
              one.runId,
              one.id,
              {
                status: 'approved',
                reason: null,
                decidedBy: null,
              },
              CALLER,
            ),
          ),
          at(-offset).then(async () => {
            const first = await approvals.expireDue('org-1', one.runId, 'ask');
            // Before the deadline nothing expires yet; once past it, the expiry tries again.
            return first.length > 0
              ? first
              : at(60).then(() => approvals.expireDue('org-1', one.runId, 'ask'));
          }),
        ]);
        return { decided: decided !== null, expired: expired.length > 0, id: one.id };
      }),
    );
    for (const outcome of outcomes) {
      expect({ ...outcome, winners: Number(outcome.decided) + Number(outcome.expired) }).toEqual({
        ...outcome,
        winners: 1,
      });
      const stored = await approvals.find('org-1', outcome.id);
      expect(stored!.status).toBe(outcome.decided ? 'approved' : 'expired');
    }
    expect(outcomes.some((outcome) => outcome.decided)).toBe(true);
    expect(outcomes.some((outcome) => outcome.expired)).toBe(true);
  });

  it('keeps the first outcome of an approved action only', async () => {
    const [one] = await approvals.insertPending([approval(newId())], 3600);
    expect((await approvals.settle('org-1', one!.id, { result: { status: 200 } }))!.result).toEqual({
      status: 200,
    });
    expect(await approvals.settle('org-1', one!.id, { error: 'again' })).toBeNull();
    expect((await approvals.find('org-1', one!.id))!.error).toBeNull();
  });

  it("closes a cancelled run's pending approvals, of its organization only, with the cancel's message", async () => {
    const runId = newId();
    const [first, second] = await approvals.insertPending(
      [approval(runId, { nodeId: 'ask' }), approval(runId, { nodeId: 'ask-again' })],
      3600,
    );
    const [decided] = await approvals.insertPending([approval(runId, { nodeId: 'decided' })], 3600);
    await approvals.decide(
      'org-1',
      runId,
      decided!.id,
      {
        status: 'approved',
        reason: null,
        decidedBy: 'user:u',
      },
      CALLER,
    );
    const [otherRun] = await approvals.insertPending([approval(newId())], 3600);
    const [otherOrganization] = await approvals.insertPending(
      [approval(runId, { organizationId: 'org-2' })],
      3600,
    );

    expect(await approvals.closeForRun('org-1', runId, 'Cancelled by ada: wrong input.')).toBe(2);

    const read = async (id: string) => {
      const found = (await approvals.find(id === otherOrganization!.id ? 'org-2' : 'org-1', id))!;
      return { status: found.status, reason: found.reason };
    };
    expect(
      await Promise.all(
        [first!, second!, decided!, otherRun!, otherOrganization!].map((one) => read(one.id)),
      ),
    ).toEqual([
      { status: 'denied', reason: 'Cancelled by ada: wrong input.' },
      { status: 'denied', reason: 'Cancelled by ada: wrong input.' },
      { status: 'approved', reason: null },
      { status: 'pending', reason: null },
      { status: 'pending', reason: null },
    ]);
    // Closed is closed: a decision that comes after finds nothing pending.
    expect(
      await approvals.decide(
        'org-1',
        runId,
        first!.id,
        {
          status: 'approved',
          reason: null,
          decidedBy: null,
        },
        CALLER,
      ),
    ).toBeNull();
  });

  it('lists pending approvals of the organization only, soonest to expire first', async () => {
    const [later] = await approvals.insertPending([approval(newId(), { organizationId: 'org-list' })], 7200);
    const [sooner] = await approvals.insertPending([approval(newId(), { organizationId: 'org-list' })], 3600);
    await approvals.insertPending([approval(newId(), { organizationId: 'org-other' })], 3600);
    const listed = await approvals.pending('org-list', 10);
    expect(listed.map((item) => item.runId)).toEqual([sooner!.runId, later!.runId]);
  });
});
