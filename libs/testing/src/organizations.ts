import { adminCli } from './admin-cli.js';
import { ApiClient, expectData } from './api-client.js';
import type { StackDescription } from './test-stack.js';

export interface OrganizationFixture {
  organizationId: string;
  apiKey: string;
  /** Calls the API with the organization's key. */
  api: ApiClient;
}

/** A fresh organization with a key, made with the admin CLI as an operator would. */
export async function createOrganization(
  stack: StackDescription,
  { plan = 'enterprise', name = 'Test org' }: { plan?: 'free' | 'pro' | 'enterprise'; name?: string } = {},
): Promise<OrganizationFixture> {
  const { organizationId, apiKey } = await adminCli<{ organizationId: string; apiKey: string }>(
    ['org', 'create', '--name', name, '--plan', plan],
    stack.env,
  );
  return { organizationId, apiKey, api: new ApiClient(stack.baseUrl, apiKey) };
}

/** A project of the organization `api` speaks for; answers its id. */
export async function createProject(api: ApiClient, name = 'Test project'): Promise<string> {
  return expectData(await api.POST('/api/v1/projects', { body: { name } }), 201).id;
}
