/**
 * One browser of the grid: a remote Chromium reached over CDP, or a local headless Chromium this
 * process launched. Connects lazily and again after a disconnect or crash.
 */
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { launch as launchProcess, type Process } from '@puppeteer/browsers';
import puppeteer, { type Browser } from 'puppeteer-core';
import type { Logger } from 'pino';
import { CdpPipeTransport } from './cdp-pipe.js';
import { isHeadlessShell } from './chrome-path.js';
import { launchCommand, type LaunchCommand } from './launch-priority.js';
import { CLOSE_TIMEOUT_MS, within } from './within.js';

/** Flags for a locally launched Chromium on a machine without network egress to Google services. */
export const LOCAL_CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  '--disable-dev-shm-usage',
  // Full Chromium 15x preloads the omnibox popup as a WebUI renderer in every window, headless too:
  // a renderer start per incognito context and CPU while idle (puppeteer upstream #15278 turns it
  // off). The headless shell (chrome-path.ts) has no windows; the flag changes nothing there.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup',
  // With site isolation on, warm pages reading at once have Chromium start and end a renderer
  // process every few reads (site-locked processes for navigations that are then aborted:
  // page-capture.ts). Site isolation keeps one site's documents from another
  // site's scripts in a shared renderer; here no document reaches a renderer and JavaScript is off,
  // and reads stay apart by their incognito contexts, which never share a renderer.
  '--disable-site-isolation-trials',
] as const;

/** Where a slot's browser comes from. */
export type BrowserSource =
  /** A CDP endpoint: `ws://…/devtools/browser/<id>`, or `http://host:port` (resolved via /json/version). */
  | { kind: 'connect'; endpoint: string }
  /** A local headless Chromium launched from this binary, with a fresh temporary profile. */
  | { kind: 'launch'; chromePath: string; /** Nice value of its process tree (0 = the launcher's priority). */ nice: number };

/** Options shared by every slot. */
export interface BrowserSlotOptions {
  /** Time limit of one CDP call, ms. */
  protocolTimeoutMs: number;
  logger: Logger;
}

/** A lazily (re)connected browser plus the number of reads running on it. */
export class BrowserSlot {
  /** Reads currently using this browser (maintained by the grid). */
  active = 0;
  /** After a failed connect/launch the slot is avoided until this time (epoch ms) if others are usable. */
  avoidUntil = 0;
  private browser: Browser | undefined;
  /** The process of a locally launched browser (puppeteer's `Browser.process()` is null: it is connected through `CdpPipeTransport`). */
  private chromium: Process | undefined;
  private pending: Promise<Browser> | undefined;
  private userDataDir: string | undefined;
  private userAgent: string | undefined;
  private closed = false;

  constructor(
    readonly source: BrowserSource,
    private readonly options: BrowserSlotOptions,
  ) {}

  /**
   * `local` or the endpoint, for logs and stats, without what may authenticate it: a grid's token
   * travels in the query (`ws://chrome:3000?token=…`) or as user info.
   */
  get label(): string {
    return this.source.kind === 'launch' ? 'local' : endpointLabel(this.source.endpoint);
  }

  /** True while a browser is connected. */
  get connected(): boolean {
    return this.browser?.connected ?? false;
  }

  /** Process id of a locally launched browser. */
  get pid(): number | undefined {
    return this.browser ? this.chromium?.nodeProcess.pid : undefined;
  }

  /** The connected browser, connecting or launching it first when needed. */
  async acquire(): Promise<Browser> {
    if (this.closed) throw new Error('browser slot closed');
    if (this.browser?.connected) return this.browser;
    this.pending ??= this.open().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** The browser's user agent with `HeadlessChrome` replaced by `Chrome`. */
  async headfulUserAgent(browser: Browser): Promise<string> {
    this.userAgent ??= (await browser.userAgent()).replace('HeadlessChrome', 'Chrome');
    return this.userAgent;
  }

  /** Disconnects from a remote browser or closes a local one (and deletes its profile). Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const browser = this.browser ?? (await this.pending?.catch(() => undefined));
    this.browser = undefined;
    if (!browser) return;
    try {
      if (this.source.kind === 'connect') await browser.disconnect();
      else await this.closeLocal(browser);
    } catch (error) {
      this.options.logger.warn({ err: error, browser: this.label }, 'closing browser failed');
      this.chromium?.kill();
    }
    await this.removeProfile();
  }

  private async open(): Promise<Browser> {
    await this.removeProfile();
    const browser = this.source.kind === 'connect' ? await this.connect(this.source.endpoint) : await this.launch(this.source.chromePath, this.source.nice);
    if (this.closed) {
      await (this.source.kind === 'connect' ? browser.disconnect() : this.closeLocal(browser)).catch(() => undefined);
      throw new Error('browser slot closed');
    }
    this.browser = browser;
    this.userAgent = undefined;
    const child = this.source.kind === 'launch' ? this.chromium?.nodeProcess : undefined;
    browser.once('disconnected', () => {
      if (this.browser === browser) this.browser = undefined;
      if (this.closed) return; // close() is ending it: `closeLocal` waits for Chromium's own exit.
      this.options.logger.warn({ browser: this.label }, 'browser disconnected; reconnecting on the next read');
      child?.kill('SIGKILL');
    });
    // Last resort: a locally launched Chromium runs in its own process group, so a parent that
    // dies without a graceful close would orphan it. Kill it synchronously when this process exits.
    if (child) {
      const killOnExit = () => { child.kill('SIGKILL'); };
      process.once('exit', killOnExit);
      child.once('exit', () => process.off('exit', killOnExit));
    }
    this.options.logger.info({ browser: this.label, pid: child?.pid }, 'browser ready');
    return browser;
  }

  private connect(endpoint: string): Promise<Browser> {
    const target = /^https?:\/\//i.test(endpoint) ? { browserURL: endpoint } : { browserWSEndpoint: endpoint };
    return puppeteer.connect({ ...target, defaultViewport: null, protocolTimeout: this.options.protocolTimeoutMs });
  }

  private async launch(chromePath: string, nice: number): Promise<Browser> {
    this.userDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'retail-chromium-'));
    const command = launchCommand(chromePath, nice);
    const headless = isHeadlessShell(chromePath) ? 'shell' : true;
    try {
      return await this.spawn(command, headless);
    } catch (error) {
      if (command.prefix.length === 0) throw error;
      // A lower priority is worth less than reading at all (a host may refuse `setpriv`'s calls).
      this.options.logger.warn({ err: error, browser: this.label, command: command.executablePath }, 'Chromium did not start at a lower priority; starting it as it is');
      return this.spawn({ executablePath: chromePath, prefix: [] }, headless);
    }
  }

  /**
   * Starts Chromium (with `prefix` and `executablePath` in front when it runs at a lower priority)
   * and connects to it. CDP goes over the child's stdio pipe rather than a WebSocket: Chromium exits
   * when the pipe closes, so it dies with this process even on SIGKILL or a crash (no 'exit'
   * handler runs). The process is started by @puppeteer/browsers, as `puppeteer.launch` does; the
   * connection is `puppeteer.connect` on our `CdpPipeTransport` (cdp-pipe.ts says why).
   * `headless` is puppeteer's: `'shell'` for Chromium's headless shell (chrome-path.ts), else `true`.
   * @throws Error when the command is missing, or with Chromium's last output when it exits before it answers
   */
  private async spawn({ executablePath, prefix }: LaunchCommand, headless: true | 'shell'): Promise<Browser> {
    if (!existsSync(executablePath)) throw new Error(`Chromium was not found at ${executablePath}`);
    const chromiumArgs = puppeteer.defaultArgs({ headless, args: [...LOCAL_CHROMIUM_ARGS, `--user-data-dir=${this.userDataDir}`, '--remote-debugging-pipe'] });
    const chromium = launchProcess({
      executablePath,
      args: [...prefix, ...chromiumArgs],
      env: process.env,
      pipe: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    this.chromium = chromium;
    const child = chromium.nodeProcess;
    const failed = new Promise<never>((_, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => reject(new Error(`Chromium exited (${signal ?? code}) before it answered: ${chromium.getRecentLogs().slice(-5).join(' | ')}`)));
    });
    failed.catch(() => undefined);
    try {
      const { 3: toChromium, 4: fromChromium } = child.stdio as unknown as (Writable & Readable)[];
      // No pipes: the spawn itself failed, and `failed` says why.
      if (!toChromium || !fromChromium) return await failed;
      return await Promise.race([
        puppeteer.connect({ transport: new CdpPipeTransport(toChromium, fromChromium), defaultViewport: null, protocolTimeout: this.options.protocolTimeoutMs }),
        failed,
      ]);
    } catch (error) {
      chromium.kill();
      throw error;
    }
  }

  /**
   * Closes a launched browser: `Browser.close`, then its process's own exit, CLOSE_TIMEOUT_MS at
   * most for each; a process still there then has its process group killed.
   */
  private async closeLocal(browser: Browser): Promise<void> {
    const chromium = this.chromium;
    await within(browser.close(), CLOSE_TIMEOUT_MS);
    if (chromium) await within(chromium.hasClosed(), CLOSE_TIMEOUT_MS);
    await chromium?.close();
  }

  private async removeProfile(): Promise<void> {
    const dir = this.userDataDir;
    this.userDataDir = undefined;
    if (dir) await fs.rm(dir, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
  }
}

/** A CDP endpoint without user info, query or fragment (`ws://chrome:3000?token=x` → `ws://chrome:3000/`). */
export function endpointLabel(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return endpoint.replace(/[?#].*$/, '').replace(/\/\/[^/@]*@/, '//');
  }
}
