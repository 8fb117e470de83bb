/**
 * The replay server (the marketplace stand-in) with chosen paths answered late, so a test can
 * observe a task before it completes or a live read running out of budget.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadManifest } from '../../replay/manifest.js';
import { createReplayHandler } from '../../replay/server.js';

export interface DelayedReplay {
  url: string;
  hits(path: string): number;
  close(): Promise<void>;
}

/** Serves `dir` like `npm run replay`; requests for a path in `delays` wait that many ms first. */
export async function startDelayedReplay(dir: string, delays: Record<string, number> = {}): Promise<DelayedReplay> {
  const manifest = await loadManifest(dir);
  const hits = new Map<string, number>();
  const handler = createReplayHandler(manifest, hits);
  const server = http.createServer((req, res) => {
    const delay = delays[new URL(req.url ?? '/', 'http://x').pathname] ?? 0;
    if (delay) setTimeout(() => handler(req, res), delay);
    else handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (path) => hits.get(path) ?? 0,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
