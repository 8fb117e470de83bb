/**
 * `npm run screenshot:temporal-ui`: a PNG of the Temporal Web UI's workflow list, as an operator
 * sees it (docs/operations.md "Operators' view in the Temporal UI" links the one in docs/images/),
 * taken by headless Chromium (puppeteer-core; CHROME_PATH, else /usr/bin/chromium, chromium,
 * google-chrome). Like an operator, it adds the search-attribute columns of `--columns` to the list
 * (the UI's column settings: the list shows the one-line summaries through the `Summary` search
 * attribute) and removes those of `--hide`, then waits until the list shows a row of each of
 * `--types` with its summary.
 *
 *   npm run screenshot:temporal-ui -- [--url http://127.0.0.1:8233] [--namespace default]
 *     [--query "<visibility query>"] [--types productTask,monitorSubscription,webhookDelivery]
 *     [--columns Summary,ResultCode,AccountId] [--hide "Run ID,End"]
 *     [--out docs/images/temporal-ui-workflows.png] [--width 1600] [--height 900]
 */
import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import puppeteer from 'puppeteer-core';
import { resolveChromePath } from '../worker/browser/chrome-path.js';

const program = new Command('screenshot:temporal-ui')
  .option('--url <url>', 'the Temporal Web UI', 'http://127.0.0.1:8233')
  .option('--namespace <name>', 'namespace of the list', 'default')
  .option('--query <query>', 'visibility query typed into the search box', "WorkflowType IN ('productTask', 'monitorSubscription', 'webhookDelivery')")
  .option('--types <list>', 'workflow types that must be listed before the shot', 'productTask,monitorSubscription,webhookDelivery')
  .option('--columns <list>', 'search attributes to add as columns', 'Summary,ResultCode,AccountId')
  .option('--hide <list>', 'columns to remove', 'Run ID,End')
  .option('--out <file>', 'where the PNG goes', 'docs/images/temporal-ui-workflows.png')
  .option('--width <px>', 'viewport width', '1920')
  .option('--height <px>', 'viewport height', '760')
  .parse();
const options = program.opts<{ url: string; namespace: string; query?: string; types: string; columns: string; hide: string; out: string; width: string; height: string }>();
const list = (text: string) => text.split(',').map((t) => t.trim()).filter(Boolean);

const listUrl = new URL(`/namespaces/${encodeURIComponent(options.namespace)}/workflows`, options.url);
if (options.query) listUrl.searchParams.set('query', options.query);
const types = list(options.types);

const browser = await puppeteer.launch({
  executablePath: resolveChromePath(process.env.CHROME_PATH),
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  /** Clicks `selector` once it is shown (the UI renders its drawer and rows after its requests). */
  const click = async (selector: string) => (await page.waitForSelector(selector, { visible: true, timeout: 30_000 }))!.click();
  await page.setViewport({ width: Number(options.width), height: Number(options.height) });
  await page.goto(listUrl.href, { waitUntil: 'networkidle0', timeout: 60_000 });
  // The column settings (the gear below the list): the UI keeps them in the browser's storage.
  await click('[data-testid="workflows-summary-table-configuration-button"]');
  for (const column of list(options.hide)) await click(`[data-testid="orderable-list-item-${column}-remove-button"]`);
  const shown = (await page.$$('[data-testid$="-remove-button"][data-testid^="orderable-list-item-"]')).length;
  // Each added column goes right after the workflow id and the columns added before it (Status
  // and Workflow ID come first): the summary and the result code stay in view on a narrow screen.
  for (const column of list(options.columns)) {
    await click(`[data-testid="orderable-list-item-${column}-add-button"]`);
    for (let i = 0; i < shown - 2; i++) await click(`[data-testid="orderable-list-item-${column}-move-up-button"]`);
  }
  await click('[data-testid="drawer-close-button"]');
  await page.click('button[aria-label="Collapse saved views"]').catch(() => undefined);
  await page.reload({ waitUntil: 'networkidle0', timeout: 60_000 });
  // The list renders after its visibility query answers: wait for a row of every type asked for.
  await page.waitForFunction((wanted: string[]) => wanted.every((t) => document.body.innerText.includes(t)), { timeout: 60_000 }, types);
  fs.mkdirSync(path.dirname(options.out), { recursive: true });
  await page.screenshot({ path: options.out as `${string}.png` });
  process.stdout.write(`${JSON.stringify({ url: listUrl.href, out: options.out })}\n`);
} finally {
  await browser.close();
}
