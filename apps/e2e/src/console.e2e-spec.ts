import {
  adminCli,
  ConsoleBrowser,
  createMember,
  createOrganization,
  type MemberFixture,
  type OrganizationFixture,
  PHONE,
  runningStack,
} from '#testing';
import type { Page } from 'playwright-core';

/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against the shared
 * stack: signing in, the organization switcher, the pages, and an accessibility check of each.
 */
describe('console', () => {
  const stack = runningStack();
  let browser: ConsoleBrowser;
  let org: OrganizationFixture;
  let owner: MemberFixture;
  let page: Page;

  beforeAll(async () => {
    [browser, org] = await Promise.all([
      ConsoleBrowser.launch(stack.baseUrl),
      createOrganization(stack, { name: 'Acme' }),
    ]);
    owner = await createMember(stack, org.organizationId, 'owner');
  });

  afterAll(async () => {
    await browser?.close();
  });

  async function expectAccessible(target: Page): Promise<void> {
    expect(await browser.accessibilityViolations(target)).toEqual([]);
  }

  it('serves the console at / and its pages by address, and leaves the API alone', async () => {
    const html = await fetch(`${stack.baseUrl}/workflows/anything`, { headers: { accept: 'text/html' } });
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('<div id="root">');
    const api = await fetch(`${stack.baseUrl}/api/v1/nothing-here`, { headers: { accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('signs a member in and shows the dashboard', async () => {
    page = await browser.newPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in to Flowmesh' }).waitFor();
    await expectAccessible(page);
    await browser.screenshot(page, 'sign-in');
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).not.toContain('{');
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await page.getByLabel('Organization').inputValue()).toBe(org.organizationId);
    await page.getByRole('heading', { name: 'Needs attention' }).waitFor();
    await expectAccessible(page);
    await browser.screenshot(page, 'dashboard');
  });

  it('shows the plan, its limits and the usage', async () => {
    await page.getByRole('link', { name: 'Billing' }).click();
    await page.getByRole('heading', { name: /Enterprise plan/ }).waitFor();
    await page.getByRole('row', { name: /Projects/ }).waitFor();
    await expectAccessible(page);
    await browser.screenshot(page, 'billing');
  });

  it('switches the active organization', async () => {
    const other = await createOrganization(stack, { name: 'Beta' });
    // The same person joins the other organization as a member.
    await adminCli(
      [
        'user',
        'create',
        '--org',
        other.organizationId,
        '--email',
        owner.email,
        '--password',
        owner.password,
        '--role',
        'member',
      ],
      stack.env,
    );
    await page.reload();
    await page.getByLabel('Organization').selectOption(other.organizationId);
    await page.getByText(`${owner.email} · member`).waitFor();
    await page.getByLabel('Organization').selectOption(org.organizationId);
    await page.getByText(`${owner.email} · owner`).waitFor();
  });

  it('works at a phone width with the menu', async () => {
    const phone = await browser.signIn(owner.email, owner.password, PHONE);
    await phone.getByRole('link', { name: 'Billing' }).waitFor({ state: 'hidden' });
    await phone.getByRole('button', { name: 'Menu' }).click();
    await phone.getByRole('link', { name: 'Billing' }).click();
    await phone.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    await expectAccessible(phone);
    await browser.screenshot(phone, 'phone-billing');
    await phone.context().close();
  });
});
