import { adminCli } from './admin-cli.js';
import { ApiClient } from './api-client.js';
import { RawClient } from './raw-client.js';
import type { StackDescription } from './test-stack.js';

export interface MemberFixture {
  userId: string;
  email: string;
  password: string;
  /** Signed in: calls the API with the member's session token. */
  api: ApiClient;
}

let counter = 0;

/** Signs in through the browser route and answers the session token. */
export async function signIn(stack: StackDescription, email: string, password: string): Promise<string> {
  const response = await new RawClient(stack.baseUrl).post<{ token?: string }>(
    '/api/auth/sign-in/email',
    { email, password },
    { origin: stack.baseUrl },
  );
  const token = response.body?.token;
  if (response.status !== 200 || typeof token !== 'string') {
    throw new Error(`sign-in answered ${response.status}: ${JSON.stringify(response.body)}`);
  }
  return token;
}

/** Signs in through the browser route as a browser does, and answers the `Cookie` header it would send. */
export async function sessionCookie(
  stack: StackDescription,
  email: string,
  password: string,
): Promise<string> {
  const response = await fetch(`${stack.baseUrl}/api/auth/sign-in/email`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: stack.baseUrl },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200)
    throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  return response.headers
    .getSetCookie()
    .map((header) => header.split(';')[0])
    .join('; ');
}

/** A member of `organizationId` made with the admin CLI, signed in. */
export async function createMember(
  stack: StackDescription,
  organizationId: string,
  role: 'owner' | 'admin' | 'member' = 'member',
): Promise<MemberFixture> {
  counter += 1;
  const email = `member-${Date.now().toString(36)}-${process.pid}-${counter}@example.com`;
  const password = `pw-${Math.random().toString(36).slice(2)}-Secret!`;
  const { userId } = await adminCli<{ userId: string }>(
    ['user', 'create', '--org', organizationId, '--email', email, '--password', password, '--role', role],
    stack.env,
  );
  const token = await signIn(stack, email, password);
  return { userId, email, password, api: new ApiClient(stack.baseUrl, token) };
}
