import { type ApiClient, expectData } from './api-client.js';
import type { Schemas } from './api-schema.js';

export type NewAgent = Schemas['CreateAgentDto'];
export type Agent = Schemas['AgentDto'];
export type NewSkill = Schemas['CreateSkillDto'];

/** Creates one of the organization's agents, checks it was created, and answers it. */
export async function createAgent(api: ApiClient, agent: NewAgent): Promise<Agent> {
  return expectData(await api.POST('/api/v1/agents', { body: agent }), 201);
}

/** Creates a skill, checks it was created, and answers its id. */
export async function createSkill(api: ApiClient, skill: NewSkill): Promise<string> {
  return expectData(await api.POST('/api/v1/skills', { body: skill }), 201).id;
}
