// The inspector end to end: a real server on 127.0.0.1 over a seeded SQLite store, Debian's chromium driven by playwright-core.
/// <reference lib="dom" />
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../src/core/logger.js';
import { hashingEmbedder } from '../src/embedders/hashing/index.js';
import { openMemory } from '../src/open-memory.js';
import type { Mnemo } from '../src/open-memory.js';
import { createApi } from '../src/server/create-api.js';
import { startHttpServer } from '../src/server/start-http-server.js';
import type { RunningHttpServer } from '../src/server/start-http-server.js';
import { TokenTable } from '../src/server/tokens.js';
import { tempDir } from './helpers.js';
import { MARTA, MARTA_TAGS, SAVE, seedScene } from './serving-fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const SCREENSHOTS = join(import.meta.dirname, '..', 'test-output', 'inspector');
const ADMIN = 'inspector-admin-token-0123456789';
const GAME = 'inspector-game-token-0123456789';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const dir = tempDir();
let memory: Mnemo;
let running: RunningHttpServer;
let local: RunningHttpServer;

beforeAll(async () => {
  memory = await openMemory({ path: join(dir, 'inspector.db'), embedder: hashingEmbedder({ dimensions: 64 }), logger: silentLogger });
  await seedScene(memory);
  await memory.add({ saveId: 'other', turnId: 1, text: 'In another save, the lighthouse keeper counts gulls.' });
  const auth = new TokenTable([
    { token: ADMIN, name: 'author', saves: '*', admin: true },
    { token: GAME, name: 'game', saves: [SAVE] },
  ]);
  running = await startHttpServer({ fetch: createApi({ memory, auth, logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
  local = await startHttpServer({ fetch: createApi({ memory, auth: 'insecure-local', logger: silentLogger }).fetch, host: '127.0.0.1', port: 0 });
});

afterAll(async () => {
  await running?.close();
  await local?.close();
  await memory?.close();
});

describe('inspector: static files', () => {
  it('serves the page and its modules without a token, with their content types; / leads to it', async () => {
    const root = await fetch(`${running.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/inspector/');
    const page = await fetch(`${running.url}/inspector/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('<script type="module" src="app.js">');
    for (const [path, type] of [['app.js', 'text/javascript'], ['views/timeline.js', 'text/javascript'], ['style.css', 'text/css']] as const) {
      const answer = await fetch(`${running.url}/inspector/${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toContain(type);
    }
  });

  it('serves nothing outside its fixed list of files, and the data still needs a token', async () => {
    expect((await fetch(`${running.url}/inspector/missing.js`)).status).toBe(404);
    expect((await fetch(`${running.url}/inspector/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${running.url}/inspector/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
    expect((await fetch(`${running.url}/v1/saves`)).status).toBe(401);
  });

  it('can be turned off', async () => {
    const app = createApi({ memory, auth: 'insecure-local', inspector: false, logger: silentLogger });
    expect((await app.request('/inspector/')).status).toBe(404);
  });
});

describe.skipIf(!HAS_CHROMIUM)(`inspector in a real browser${HAS_CHROMIUM ? '' : ' (skipped: /usr/bin/chromium is absent; install it with `apt-get install -y chromium`, as .ci/run does)'}`, () => {
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    context = await chromium.launchPersistentContext(tempDir(), { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 } });
    page = context.pages()[0] ?? (await context.newPage());
  }, 60_000);

  afterAll(async () => {
    await context?.close();
  });

  /** Opens a view and waits until it has rendered. */
  async function open(hash: string, view: string): Promise<void> {
    await page.evaluate(() => document.getElementById('main')?.removeAttribute('data-ready'));
    await page.evaluate((target) => { location.hash = target; }, hash);
    await page.waitForSelector(`#main[data-ready="${view}"]`);
  }

  const shoot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it('asks for the token once, keeps it for the session, and lists the saves with their counts', async () => {
    await page.goto(`${running.url}/`);
    await page.waitForSelector('#token-form');
    await page.fill('input[name=token]', 'not-the-token');
    await page.click('#token-form button');
    await expect.poll(() => page.textContent('#token-form .error')).toContain('not one this server knows');
    await page.fill('input[name=token]', ADMIN);
    await page.click('#token-form button');
    await page.waitForSelector('#main[data-ready="saves"]');
    const row = page.locator(`tr[data-save="${SAVE}"] td`);
    expect(await row.allTextContents()).toEqual([SAVE, '13', '13', '4', '3', '1', '0 – 12', 'idle', 'search beliefs context ', 'Delete…']);
    expect(await page.textContent('#who')).toContain('author (admin)');
    await page.reload();
    await page.waitForSelector('#main[data-ready="saves"]');
    expect(await page.isVisible('#token-form')).toBe(false);
    expect(await page.textContent('.notice')).toContain('does not record');
    await shoot('saves');
  });

  it('searches a save and draws why each hit ranked', async () => {
    await open(`#/search?save=${SAVE}&q=${encodeURIComponent('smuggled salt cellar')}&focus=Marta&tags=${MARTA_TAGS.join(',')}`, 'search');
    const hits = page.locator('#results .hit');
    expect(await hits.count()).toBeGreaterThan(1);
    expect(await hits.first().textContent()).toContain('salt');
    for (const metric of ['lexical', 'semantic', 'fused', 'boost', 'rerank']) expect(await hits.first().locator(`.bar[data-metric="${metric}"]`).count(), metric).toBe(1);
    const fusedWidth = await hits.first().locator('.bar[data-metric="fused"]').evaluate((bar) => (bar as HTMLElement).getBoundingClientRect().width);
    expect(fusedWidth).toBeGreaterThan(10);
    expect(await page.textContent('#results')).toContain('Lore this character may know');
    expect(await page.locator('#lore-hits .hit').count()).toBeGreaterThan(0);
    expect(await page.textContent('#lore-hits')).not.toContain('The Brackwater lantern house');
    await shoot('search');
  });

  it('shows the beliefs of a subject under its mental model, with proofs, linked sources and an evidence sparkline', async () => {
    await open(`#/beliefs?save=${SAVE}`, 'beliefs');
    const marta = page.locator(`.subject[data-subject="${MARTA}"]`);
    expect(await marta.locator('.model').textContent()).toContain('runs the Sunken Bell');
    const salt = marta.locator('.belief', { hasText: 'Marta deals in smuggled salt.' });
    expect(await salt.textContent()).toContain('3 proof(s)');
    expect(await salt.locator('.sources a').count()).toBe(3);
    expect(await salt.locator('.sources a').first().getAttribute('href')).toBe(`#/timeline?save=${SAVE}&from=3&turn=3`);
    expect(await salt.locator('svg.sparkline circle').count()).toBe(3);
    expect(await page.locator('.subject[data-subject=""] .belief').count()).toBe(1);
    await shoot('beliefs');
  });

  it('shows the live commit of the lore book', async () => {
    await open('#/lore', 'lore');
    expect(await page.getAttribute('#lore-origin', 'data-reader')).toBe('entries');
    const commit = '4f2a9c81d0e3b7a6c5d4e3f2a1b0c9d8e7f6a5b4';
    const before = { version: await memory.store.lore.version(), origin: await memory.store.lore.origin() };
    await memory.store.lore.apply({ expectedVersion: before.version, create: [], update: [], remove: [], origin: { reader: 'git', location: 'https://git.example/orsa/lore.git', ref: 'main', commit, importedAt: Date.UTC(2026, 0, 2, 3, 4, 5) } });
    try {
      await open('#/saves', 'saves');
      await open('#/lore', 'lore');
      expect(await page.textContent('#lore-origin')).toBe('Live lore: git https://git.example/orsa/lore.git at main, commit 4f2a9c81d0e3 · imported 2026-01-02 03:04:05 UTC');
      expect(await page.getAttribute('#lore-commit', 'title')).toBe(commit);
      await shoot('lore-origin');
    } finally {
      await memory.store.lore.apply({ expectedVersion: before.version, create: [], update: [], remove: [], origin: before.origin ?? undefined });
      await open('#/saves', 'saves');
    }
  });

  it('shows the lore book by scope, and as a character: what it reaches and what it cannot, with the missing tag', async () => {
    await open('#/lore', 'lore');
    expect(await page.locator('#lore-book [data-level]').count()).toBe(4);
    expect(await page.locator('#lore-book [data-entry="The Brackwater lantern house"]').count()).toBe(1);
    await page.fill('input[name=as]', MARTA_TAGS.join(', '));
    await page.click('#as-character button[type=submit]');
    await page.waitForSelector('#lore-reach');
    expect(await page.locator('#reachable [data-entry="The Brackwater lantern house"]').count()).toBe(0);
    const hidden = page.locator('#unreachable tr[data-entry="The Brackwater lantern house"]');
    expect(await hidden.locator('.missing-tags').textContent()).toBe('lamplighters');
    expect((await page.locator('#unreachable tr[data-entry="Mudlark safe houses"] .missing-tags .tag').allTextContents()).sort()).toEqual(['brackwater_undercroft', 'mudlarks']);
    expect((await page.locator('#reachable tbody tr td:first-child').allTextContents()).sort()).toEqual(['Founding of Brackwater', 'The Lantern Compact', 'The Long Drowning', 'The Salt Toll', 'The Sunken Bell']);
    await shoot('lore');
  });

  it('builds the context a character would get, section by section, with the budget used', async () => {
    await open(`#/context?save=${SAVE}&character=${MARTA}&message=${encodeURIComponent('Tell me about the salt and the lantern house')}&tags=${MARTA_TAGS.join(',')}&budget=600`, 'context');
    expect(await page.textContent('#budget-used')).toMatch(/\d+ of 600 tokens used/u);
    expect(await page.locator('[data-section]').count()).toBe(5);
    expect(await page.textContent('[data-section="mental_model"]')).toContain('runs the Sunken Bell');
    expect(await page.textContent('#context')).not.toContain('lantern house stands');
    expect(await page.textContent('[data-section="lore_context"]')).not.toContain('Lamplighters founded');
    await shoot('context');
  });

  it('shows a turn with its chunks and facts, rewinds after a confirmation, and then shows the rewound state', async () => {
    await open(`#/timeline?save=${SAVE}`, 'timeline');
    expect(await page.locator('#turns .turn').count()).toBe(13);
    expect(await page.textContent('#turn-3')).toContain('Rowan gave Marta a sack of untaxed salt.');
    expect(await page.textContent('#turn-0')).toContain('lantern house');
    await shoot('timeline');
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.click('button[data-rewind="9"]');
    expect(await page.locator('#turn-12').count()).toBe(1);
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.accept();
    });
    await page.evaluate(() => document.getElementById('main')?.removeAttribute('data-ready'));
    await page.click('button[data-rewind="9"]');
    await page.waitForSelector('#rewind-result');
    await page.waitForSelector('#main[data-ready="timeline"]');
    expect(dialogs[0]).toContain('Rewind "run-1" to turn 9?');
    expect(await page.textContent('#rewind-result')).toContain('removed 3 chunk(s), 2 fact(s)');
    expect(await page.locator('#turn-10').count()).toBe(0);
    expect(await page.locator('#turn-12').count()).toBe(0);
    expect(await page.locator('#turn-9').count()).toBe(1);
    await shoot('timeline-rewound');
    await open(`#/beliefs?save=${SAVE}`, 'beliefs');
    expect(await page.textContent('#main')).not.toContain('Marta fears Rowan.');
    await open('#/saves', 'saves');
    expect(await page.locator(`tr[data-save="${SAVE}"] td`).nth(1).textContent()).toBe('10');
  });

  it('shows readable errors and empty states', async () => {
    await open('#/timeline?save=nothing-here', 'timeline');
    expect(await page.textContent('#main')).toContain('This save has no turns');
    await open('#/beliefs?save=nothing-here', 'beliefs');
    expect(await page.textContent('#main')).toContain('No beliefs or mental models yet');
    await open(`#/search?save=${SAVE}&q=salt&upTo=-4`, 'search');
    expect(await page.textContent('#main .error')).toContain('INVALID_INPUT');
  });

  it('needs no token with --insecure-local on loopback', async () => {
    const fresh = await context.newPage();
    await fresh.goto(`${local.url}/inspector/#/saves`);
    await fresh.waitForSelector('#main[data-ready="saves"]');
    expect(await fresh.isVisible('#token-form')).toBe(false);
    expect(await fresh.textContent('#who')).toContain('insecure-local');
    await fresh.close();
  });

  it('deletes a save after its id is typed, refreshes the list, and shows the refusal when the token may not delete it', async () => {
    // A token the operator then narrows (the server restarted with a tokens file that no longer grants "other"):
    // the page still lists "other", and the delete is refused with the server's FORBIDDEN.
    let grant = createApi({ memory, auth: new TokenTable([{ token: GAME, name: 'game', saves: [SAVE, 'other'] }]), logger: silentLogger });
    const narrowing = await startHttpServer({ fetch: (request) => grant.fetch(request), host: '127.0.0.1', port: 0 });
    const fresh = await context.newPage();
    try {
      await fresh.goto(`${narrowing.url}/inspector/`);
      await fresh.evaluate((token) => sessionStorage.setItem('mnemo.token', token), GAME);
      await fresh.reload();
      await fresh.waitForSelector('#main[data-ready="saves"]');
      expect(await fresh.locator('tr[data-save]').count()).toBe(2);
      grant = createApi({ memory, auth: new TokenTable([{ token: GAME, name: 'game', saves: [SAVE] }]), logger: silentLogger });
      await fresh.click('button[data-delete="other"]');
      await fresh.fill('#delete-form input[name=confirm-save]', 'other');
      await fresh.click('#delete-form button[type=submit]');
      await expect.poll(() => fresh.textContent('#delete-form .error')).toContain('FORBIDDEN: saveId: this token may use "run-1", not "other"');
      expect((await memory.listChunks('other')).length).toBe(1);
    } finally {
      await fresh.close();
      await narrowing.close();
    }

    // The admin deletes "other": the button waits for the exact id, then the list is drawn again without it.
    await open('#/saves', 'saves');
    expect(await page.locator('tr[data-save="other"]').count()).toBe(1);
    await page.click('button[data-delete="other"]');
    expect(await page.textContent('#delete-form')).toContain('1 chunk(s)');
    const submit = page.locator('#delete-form button[type=submit]');
    expect(await submit.isDisabled()).toBe(true);
    await page.fill('#delete-form input[name=confirm-save]', 'othe');
    expect(await submit.isDisabled()).toBe(true);
    await page.fill('#delete-form input[name=confirm-save]', 'other');
    expect(await submit.isDisabled()).toBe(false);
    await shoot('delete-save');
    await page.evaluate(() => document.getElementById('main')?.removeAttribute('data-ready'));
    await submit.click();
    await page.waitForSelector('#delete-result');
    await page.waitForSelector('#main[data-ready="saves"]');
    expect(await page.textContent('#delete-result')).toBe('Deleted "other": removed 1 chunk(s), 0 fact(s), 0 belief(s), 0 model(s), 0 queued job(s).');
    expect(await page.locator('tr[data-save="other"]').count()).toBe(0);
    expect(await page.locator(`tr[data-save="${SAVE}"]`).count()).toBe(1);
    expect(await memory.listChunks('other')).toEqual([]);
  });

  it('a token limited to a save sees only it, and lore only through a character\'s tags', async () => {
    const fresh = await context.newPage();
    await fresh.goto(`${running.url}/inspector/`);
    await fresh.evaluate((token) => sessionStorage.setItem('mnemo.token', token), GAME);
    await fresh.reload();
    await fresh.waitForSelector('#main[data-ready="saves"]');
    expect(await fresh.locator('tr[data-save]').count()).toBe(1);
    await fresh.evaluate(() => { location.hash = '#/lore'; });
    await fresh.waitForSelector('#main[data-ready="lore"]');
    expect(await fresh.textContent('#main')).toContain('not an admin');
    await fresh.close();
  });
});
