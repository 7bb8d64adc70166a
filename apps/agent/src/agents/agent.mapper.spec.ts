import { type AgentRecord, changedFields, toAgentColumns } from './agent.mapper.js';

const agent: AgentRecord = {
  id: 'agent-1',
  organizationId: 'org-1',
  name: 'Helper',
  description: '',
  instructions: 'Be brief.',
  provider: 'gateway',
  model: '',
  thinkingLevel: 'medium',
  apps: [{ connectionId: 'c-1', integrationId: 'http', actions: ['http__request'], approvals: [] }],
  skills: ['s-1'],
  databases: [],
  databaseWrites: [],
  monthlyTokenBudget: null,
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-01T00:00:00Z'),
};

describe('agent mapper', () => {
  it('keeps only the changes that change something', () => {
    expect(
      changedFields(agent, {
        name: 'Helper',
        apps: [{ connectionId: 'c-1', integrationId: 'http', actions: ['http__request'], approvals: [] }],
        skills: ['s-1', 's-2'],
      }),
    ).toEqual({ skills: ['s-1', 's-2'] });
    expect(changedFields(agent, { description: '' })).toEqual({});
  });

  it('writes the fields given to their columns, the grants as JSON text', () => {
    expect(toAgentColumns({ thinkingLevel: 'off', apps: [] })).toEqual({ thinking_level: 'off', apps: '[]' });
  });
});
