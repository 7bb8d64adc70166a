import { dataSourceOptions, kyselyOn, migrate, newId } from '#persistence';
import { scratchDatabase } from '#testing';
import type { Kysely } from 'kysely';
import { DataSource } from 'typeorm';

import { agentDataSource } from '../agent.data-source.js';
import type { DB } from '../agent.tables.js';
import { monthOf } from './budget.util.js';
import type { NewModelCall } from './usage.mapper.js';
import { UsageRepository } from './usage.repository.js';
import { audit } from '../audit/agent-audit.js';

/** The sums budgets and the usage route read, against a real Postgres database of their own. */
const database = scratchDatabase('fm_agent_usage_spec');

const call = (overrides: Partial<NewModelCall> = {}): NewModelCall => ({
  organizationId: 'org-1',
  agentId: AGENT,
  agentName: 'writer',
  provider: 'gateway',
  model: 'm1',
  runId: 'run-1',
  nodeId: 'ask',
  threadId: null,
  inputTokens: 100,
  outputTokens: 10,
  reasoningTokens: 4,
  cachedInputTokens: 50,
  ...overrides,
});

const AGENT = newId();
const OTHER_AGENT = newId();

describe('UsageRepository', () => {
  let dataSource: DataSource;
  let db: Kysely<DB>;
  let usage: UsageRepository;

  beforeAll(async () => {
    await database.create();
    await migrate(agentDataSource(database.url));
    dataSource = new DataSource(dataSourceOptions({ ...agentDataSource(database.url), poolSize: 4 }));
    await dataSource.initialize();
    db = kyselyOn<DB>(dataSource);
    usage = new UsageRepository(db);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  it('sums a month by agent and model, and the tokens an agent and its organization used since a date', async () => {
    const thread = newId();
    await usage.record([
      call({ threadId: thread }),
      call({
        threadId: thread,
        inputTokens: 200,
        outputTokens: 20,
        reasoningTokens: 0,
        cachedInputTokens: 0,
      }),
      call({ model: 'm2', agentName: 'writer-renamed' }),
      call({ agentId: OTHER_AGENT, agentName: 'other', inputTokens: 1_000, outputTokens: 1 }),
      call({ organizationId: 'org-2', inputTokens: 5_000 }),
    ]);
    // Last month's call counts in last month only.
    const lastMonth = new Date(monthOf(undefined).start.getTime() - 1_000);
    await db
      .insertInto('agent.model_calls')
      .values({
        id: newId(),
        organization_id: 'org-1',
        agent_id: AGENT,
        agent_name: 'writer',
        provider: 'gateway',
        model: 'm1',
        input_tokens: 7,
        output_tokens: 3,
        reasoning_tokens: 0,
        cached_input_tokens: 0,
        created_at: lastMonth,
      })
      .execute();

    const { start, end } = monthOf(undefined);
    expect(await usage.byAgentAndModel('org-1', start, end)).toEqual([
      {
        agentId: OTHER_AGENT,
        agentName: 'other',
        provider: 'gateway',
        model: 'm1',
        calls: 1,
        inputTokens: 1_000,
        outputTokens: 1,
        reasoningTokens: 4,
        cachedInputTokens: 50,
      },
      {
        agentId: AGENT,
        agentName: 'writer',
        provider: 'gateway',
        model: 'm1',
        calls: 2,
        inputTokens: 300,
        outputTokens: 30,
        reasoningTokens: 4,
        cachedInputTokens: 50,
      },
      {
        agentId: AGENT,
        agentName: 'writer-renamed',
        provider: 'gateway',
        model: 'm2',
        calls: 1,
        inputTokens: 100,
        outputTokens: 10,
        reasoningTokens: 4,
        cachedInputTokens: 50,
      },
    ]);
    const previous = monthOf(lastMonth.toISOString().slice(0, 7));
    expect(await usage.byAgentAndModel('org-1', previous.start, previous.end)).toMatchObject([
      { calls: 1, inputTokens: 7, outputTokens: 3 },
    ]);
    expect(await usage.tokensSince('org-1', AGENT, start)).toEqual({ organization: 1_441, agent: 440 });
    expect(await usage.tokensSince('org-3', AGENT, start)).toEqual({ organization: 0, agent: 0 });
    expect((await usage.forThread(thread)).map((found) => found.inputTokens)).toEqual([100, 200]);
  });

  it('keeps, changes and removes an organization’s budget, recording each change', async () => {
    const owner = (organizationId: string) => ({ organizationId, userId: 'owner-1', keyId: null });
    expect(await usage.budget('org-1')).toBeNull();
    await usage.setBudget(owner('org-1'), 5_000_000_000);
    await usage.setBudget(owner('org-2'), 10);
    await usage.setBudget(owner('org-1'), 6_000_000_000);
    expect([await usage.budget('org-1'), await usage.budget('org-2')]).toEqual([6_000_000_000, 10]);
    await usage.setBudget(owner('org-1'), null);
    expect([await usage.budget('org-1'), await usage.budget('org-2')]).toEqual([null, 10]);
    const recorded = await audit.list(db, 'org-1', { filter: { action: 'budget.changed' }, limit: 10 });
    expect(recorded.map((entry) => [entry.actor, entry.details])).toEqual([
      [{ type: 'member', id: 'owner-1' }, { budget: null }],
      [{ type: 'member', id: 'owner-1' }, { budget: 6_000_000_000 }],
      [{ type: 'member', id: 'owner-1' }, { budget: 5_000_000_000 }],
    ]);
  });
});
