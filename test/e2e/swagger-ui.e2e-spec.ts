import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_SEED_PASSWORD } from '../../src/config/configuration.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

/** Debian's chromium package (.ci/run installs it); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** A name for this machine that is not loopback-looking, resolved by Chromium itself (no /etc/hosts). */
const HOST = 'docs.test';

/**
 * Swagger UI in headless Chromium as a newcomer uses it: /docs loaded over plain HTTP by a host
 * name, log in through "Try it out" with the pre-filled body, Authorize, then execute every
 * operation with its pre-filled values (only the document id, printed by `npm run demo`, typed in).
 * The app is seeded with the development password the login example shows.
 */
// A browser on a 2-core machine shared with the rest of the suite: allow it time (no assertion is on time).
const BROWSER_TIMEOUT_MS = 180_000;

describe.each(databasesUnderTest())('Swagger UI at /docs in a browser, on %s', (kind) => {
  let t: TestApp;
  let browser: BrowserContext;
  let page: Page;
  let profile: string;
  let base: string;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
    }
    t = await createTestApp(kind, { SEED_PASSWORD: DEVELOPMENT_SEED_PASSWORD });
    base = t.url.replace('127.0.0.1', HOST);
    profile = mkdtempSync(join(tmpdir(), 'dms-chromium-'));
    // A fresh profile per run (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      ],
    });
    page = await browser.newPage();
    page.setDefaultTimeout(60_000);
  }, BROWSER_TIMEOUT_MS);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** Expands an operation, presses "Try it out" and Execute; answers the status and body shown. */
  async function execute(
    operationId: string,
    fill: Record<string, string> = {},
  ): Promise<{ status: number; body: string }> {
    const block = page.locator(`[id$="-${operationId}"].opblock`);
    if (!(await block.locator('.try-out__btn').isVisible())) await block.locator('.opblock-summary').first().click();
    const tryOut = block.locator('.try-out__btn');
    if ((await tryOut.textContent())?.trim() === 'Try it out') await tryOut.click();
    for (const [name, value] of Object.entries(fill)) {
      await block.locator(`tr[data-param-name="${name}"] input`).fill(value);
    }
    await block.locator('button.execute').click();
    const status = block.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    const body =
      (await block.locator('.live-responses-table .response-col_description pre').first().textContent()) ?? '';
    const shown = Number((await status.textContent())?.trim());
    // Leave the block as found: the next run of the same operation starts clean.
    await block
      .locator('.btn-clear')
      .click()
      .catch(() => undefined);
    return { status: shown, body };
  }

  it(
    'renders over plain HTTP through a non-loopback host name',
    async () => {
      const response = await page.goto(`${base}/docs`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
      // The operations appear only once the Swagger UI script and styles have loaded and run.
      await page.locator('.opblock').first().waitFor();
      expect(await page.locator('.opblock').count()).toBeGreaterThanOrEqual(7);
      expect(await page.locator('.info .title').textContent()).toMatch(/Document Management Service/);
    },
    BROWSER_TIMEOUT_MS,
  );

  it(
    'logs in through "Try it out", authorizes and executes every operation with its pre-filled values',
    async () => {
      if (!page.url().endsWith('/docs')) await page.goto(`${base}/docs`);
      await page.locator('.opblock').first().waitFor();

      const login = await execute('auth_login');
      expect(login.status).toBe(200);
      const token = (JSON.parse(login.body) as { token: string }).token;

      await page.locator('.auth-wrapper .authorize').click();
      await page.locator('.modal-ux input').first().fill(token);
      await page.locator('.modal-ux .auth-btn-wrapper .authorize').click();
      await page.locator('.modal-ux .btn-done, .modal-ux .close-modal').first().click();

      const alice = t.user('alice');
      const documentId = t.seed.documents.find((document) => document.uploadedBy === alice.id)!.id;
      const results: Record<string, number> = {};
      for (const [operationId, fill] of [
        ['health_live', {}],
        ['health_ready', {}],
        ['notifications_list', {}],
        ['documents_update', { documentId }],
        ['documents_history', { documentId }],
        ['auth_logout', {}], // last: it revokes the token
      ] as const) {
        results[operationId] = (await execute(operationId, fill)).status;
      }
      expect(results).toEqual({
        health_live: 200,
        health_ready: 200,
        notifications_list: 200,
        documents_update: 200,
        documents_history: 200,
        auth_logout: 204,
      });
    },
    BROWSER_TIMEOUT_MS,
  );
});
