import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { Browser, BrowserContext, Page } from 'playwright-core';

import { WORKSPACE_ROOT } from './service-process.js';

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it): Playwright downloads none here. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const LAPTOP = { width: 1366, height: 860 };
export const PHONE = { width: 390, height: 844 };

/**
 * Where screenshots go: `docs/console/` when `CONSOLE_SCREENSHOTS=docs` (to refresh the pictures in
 * docs/console.md), else a scratch folder, so an ordinary test run leaves the tree as it was.
 */
export const SCREENSHOT_DIR =
  process.env.CONSOLE_SCREENSHOTS === 'docs'
    ? join(WORKSPACE_ROOT, 'docs', 'console')
    : join(WORKSPACE_ROOT, 'tmp', 'console-screenshots');

export interface AxeViolation {
  id: string;
  impact: string | null | undefined;
  help: string;
  nodes: string[];
}

/**
 * One headless Chromium for a test file, driven with playwright-core against a running stack's
 * console. Each member gets a context of their own (their own cookies); Playwright gives the browser
 * a fresh profile directory of its own, removed when it closes.
 */
export class ConsoleBrowser {
  /**
   * What the browser refused to load or run under the console's Content Security Policy, on any page
   * opened so far: a console that breaks its own policy works only where the policy is not sent.
   */
  readonly securityPolicyViolations: string[] = [];

  private constructor(
    readonly browser: Browser,
    readonly baseUrl: string,
  ) {}

  static async launch(baseUrl: string): Promise<ConsoleBrowser> {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    return new ConsoleBrowser(browser, baseUrl);
  }

  /** A page in a fresh context: nobody signed in. */
  async newPage(viewport: { width: number; height: number } = LAPTOP): Promise<Page> {
    const context: BrowserContext = await this.browser.newContext({ baseURL: this.baseUrl, viewport });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && message.text().includes('Content Security Policy')) {
        this.securityPolicyViolations.push(`${page.url()}: ${message.text()}`);
      }
    });
    return page;
  }

  /** Signs in through the console's form and waits for the dashboard. */
  async signIn(email: string, password: string, viewport = LAPTOP): Promise<Page> {
    const page = await this.newPage(viewport);
    await page.goto('/sign-in');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    return page;
  }

  async screenshot(page: Page, name: string): Promise<string> {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const path = join(SCREENSHOT_DIR, `${name}.png`);
    await page.screenshot({ path, fullPage: false });
    return path;
  }

  /** The page's serious and critical accessibility violations (axe-core's WCAG 2 A and AA rules). */
  async accessibilityViolations(page: Page): Promise<AxeViolation[]> {
    const { AxeBuilder } = await import('@axe-core/playwright');
    const results = await new AxeBuilder({ page })
      .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
      .analyze();
    return results.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => ({
        id: violation.id,
        impact: violation.impact,
        help: violation.help,
        nodes: violation.nodes.map((node) => node.target.join(' ')),
      }));
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}
