/**
 * /api/docs in a real browser (Debian's Chromium, driven by playwright-core): Swagger UI renders the
 * whole document from the server's own assets, asks no other origin for anything, and logs no error.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServer, stop, type Started } from '../server-process.js';

/** Debian's package (`apt-get install chromium`): no browser is downloaded from anywhere else. */
const CHROMIUM = '/usr/bin/chromium';

type Operation = { parameters?: { name: string; in: string }[] };
type Doc = { info: { title: string }; paths: Record<string, Record<string, Operation>> };
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

let server: Started;
let browser: Browser;
let origin: string;
let doc: Doc;

beforeAll(async () => {
  server = await startServer({ DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL! });
  origin = `http://127.0.0.1:${server.port}`;
  doc = (await (await fetch(`${origin}/api/openapi.json`)).json()) as Doc;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true }).catch((e: Error) => {
    throw new Error(`Chromium did not start from ${CHROMIUM} (install Debian's: apt-get install chromium): ${e.message}`);
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  if (server) await stop(server);
});

/** What went wrong while a page was open, by kind: each list is empty on a clean load. */
interface Trouble {
  /** Requests to another origin (blocked, never sent). */
  outside: string[];
  /** Requests of our own that failed or were answered 4xx/5xx. */
  failed: string[];
  /** Console errors and uncaught exceptions. */
  errors: string[];
  /** Content-Security-Policy violations the page reported. */
  violations: string[];
}

/** A new page recording every request it makes (those to another origin blocked), its errors and CSP violations. */
async function watchedPage(): Promise<{ page: Page; trouble: Trouble; requested: string[] }> {
  const page = await browser.newPage();
  const trouble: Trouble = { outside: [], failed: [], errors: [], violations: [] };
  const requested: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    requested.push(url);
    if (new URL(url).origin === origin) return route.continue();
    trouble.outside.push(url);
    return route.abort('blockedbyclient');
  });
  page.on('requestfailed', (r) => {
    if (new URL(r.url()).origin === origin) trouble.failed.push(`${r.url()}: ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) trouble.failed.push(`${r.url()}: ${r.status()}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error') trouble.errors.push(m.text());
  });
  page.on('pageerror', (e) => trouble.errors.push(`uncaught: ${e.message}`));
  // The page's own report of each violation (a blocked resource never becomes a request to see).
  await page.exposeFunction('reportViolation', (v: string) => trouble.violations.push(v));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportViolation: (v: string) => void }).reportViolation(`${e.violatedDirective} ${e.blockedURI}`),
    ),
  );
  return { page, trouble, requested };
}

/** Each operation of the document as Swagger UI labels its block: `GET /sites`. */
const documented = () =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).filter((k) => METHODS.includes(k)).map((m) => `${m.toUpperCase()} ${path}`));

/** The operation blocks in the page now, labelled as `documented()` labels them. */
const blocks = (page: Page) =>
  page.$$eval('.opblock', (els) => els.map((el) => `${el.querySelector('.opblock-summary-method')?.textContent} ${el.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`));

/**
 * Swagger UI renders only the tags and operations near the viewport (a virtual list): this scrolls
 * the last one rendered to the top, again and again, calling `visit` at each step, until `visit`
 * says it is done (true) or the list's last item is in the page (false): no padding is left below
 * it, the place of the items not rendered.
 */
async function scrollOperations(page: Page, visit: () => Promise<boolean>): Promise<boolean> {
  while (!(await visit())) {
    if (await page.$eval('.operations-virtual__list', (l) => (l as HTMLElement).style.paddingBottom === '0px')) return false;
    const last = await page.$$eval('.operations-virtual__item', (items) => Number((items.at(-1) as HTMLElement).dataset.index));
    await page.$eval(`.operations-virtual__item[data-index="${last}"]`, (item) => item.scrollIntoView());
    await page.waitForFunction(
      (before) => [...document.querySelectorAll<HTMLElement>('.operations-virtual__item')].some((item) => Number(item.dataset.index) > before),
      last,
    );
  }
  return true;
}

/** The page at `/api/docs`, once Swagger UI has rendered the document's title; if it never does, what went wrong says why. */
async function openDocs(page: Page, trouble: Trouble) {
  const answer = await page.goto(`${origin}/api/docs`);
  expect(answer?.status()).toBe(200);
  await expect(page.title()).resolves.toBe('quire REST API v1 reference');
  // Well within the test's own limit, so that the failure is this one, with the page's trouble.
  await page.locator('.info .title').filter({ hasText: doc.info.title }).waitFor({ timeout: 15_000 }).catch((e: Error) => {
    throw new Error(`Swagger UI did not render the document: ${e.message}\n${JSON.stringify(trouble, null, 2)}`);
  });
}

const CLEAN: Trouble = { outside: [], failed: [], errors: [], violations: [] };

test('Swagger UI renders every operation of the document, with nothing from another origin, no error and no CSP violation', async () => {
  const { page, trouble, requested } = await watchedPage();
  try {
    await openDocs(page, trouble);
    const seen = new Set<string>();
    await scrollOperations(page, async () => {
      for (const b of await blocks(page)) seen.add(b);
      return false;
    });
    expect([...seen].sort()).toEqual(documented().sort());
    expect(trouble).toEqual(CLEAN);
    // It did load what it names, all from here: the page, its two files, start-up script, icon and the document.
    const paths = requested.map((url) => new URL(url).pathname);
    expect(paths).toEqual(expect.arrayContaining(['/api/docs', '/api/docs/swagger-ui.css', '/api/docs/swagger-ui-bundle.js', '/api/docs/init.js', '/api/docs/favicon-32x32.png', '/api/openapi.json']));
  } finally {
    await page.close();
  }
});

test("opening an operation (GET /sites) shows the document's parameters for it", async () => {
  const { page, trouble } = await watchedPage();
  try {
    await openDocs(page, trouble);
    const sites = page.locator('.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/sites"]') });
    expect(await scrollOperations(page, async () => (await sites.count()) > 0)).toBe(true);
    await sites.locator('.opblock-summary-control').click();
    const rows = sites.locator('.parameters tr[data-param-name]');
    await rows.first().waitFor();
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-param-in')} ${tr.getAttribute('data-param-name')}`));
    expect(shown).toEqual(doc.paths['/sites'].get.parameters!.map((p) => `${p.in} ${p.name}`));
    expect(shown).toEqual(expect.arrayContaining(['query q', 'query limit', 'query offset']));
    expect(trouble).toEqual(CLEAN);
  } finally {
    await page.close();
  }
});
