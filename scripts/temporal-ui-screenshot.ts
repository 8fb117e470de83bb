/**
 * `npm run screenshot:temporal-ui`: a PNG of the Temporal Web UI's workflow list, as an operator
 * sees it (docs/operations.md "Operators' view in the Temporal UI" links the one in docs/images/),
 * taken by headless Chromium (puppeteer-core; CHROME_PATH, else /usr/bin/chromium, chromium,
 * google-chrome). It waits until the list shows a row of each of `--types` and their summaries.
 *
 *   npm run screenshot:temporal-ui -- [--url http://127.0.0.1:8233] [--namespace default]
 *     [--query "<visibility query>"] [--types productTask,monitorSubscription,webhookDelivery]
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
  .option('--query <query>', 'visibility query typed into the search box')
  .option('--types <list>', 'workflow types that must be listed before the shot', 'productTask,monitorSubscription,webhookDelivery')
  .option('--out <file>', 'where the PNG goes', 'docs/images/temporal-ui-workflows.png')
  .option('--width <px>', 'viewport width', '1600')
  .option('--height <px>', 'viewport height', '900')
  .parse();
const options = program.opts<{ url: string; namespace: string; query?: string; types: string; out: string; width: string; height: string }>();

const listUrl = new URL(`/namespaces/${encodeURIComponent(options.namespace)}/workflows`, options.url);
if (options.query) listUrl.searchParams.set('query', options.query);
const types = options.types.split(',').map((t) => t.trim()).filter(Boolean);

const browser = await puppeteer.launch({
  executablePath: resolveChromePath(process.env.CHROME_PATH),
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: Number(options.width), height: Number(options.height) });
  await page.goto(listUrl.href, { waitUntil: 'networkidle0', timeout: 60_000 });
  // The list renders after its visibility query answers: wait for a row of every type asked for.
  await page.waitForFunction((wanted: string[]) => wanted.every((t) => document.body.innerText.includes(t)), { timeout: 60_000 }, types);
  fs.mkdirSync(path.dirname(options.out), { recursive: true });
  await page.screenshot({ path: options.out as `${string}.png` });
  process.stdout.write(`${JSON.stringify({ url: listUrl.href, out: options.out })}\n`);
} finally {
  await browser.close();
}
