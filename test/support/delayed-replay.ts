/**
 * The replay server (the marketplace stand-in) with chosen paths answered late, so a test can
 * observe a task before it completes or a live read running out of budget, and with a gate that
 * holds every page request until it is opened again, so a test can act while reads are in flight.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadManifest } from '../../replay/manifest.js';
import { createReplayHandler } from '../../replay/server.js';

export interface DelayedReplay {
  url: string;
  hits(path: string): number;
  /** From now on, requests wait (unanswered) until {@link release}. */
  hold(): void;
  /** Answers every held request and stops holding. */
  release(): void;
  /** Requests waiting at the gate now. */
  held(): number;
  close(): Promise<void>;
}

/** Serves `dir` like `npm run replay`; requests for a path in `delays` wait that many ms first. */
export async function startDelayedReplay(dir: string, delays: Record<string, number> = {}): Promise<DelayedReplay> {
  const manifest = await loadManifest(dir);
  const hits = new Map<string, number>();
  const handler = createReplayHandler(manifest, hits);
  let gate: (() => void)[] | null = null;
  const server = http.createServer((req, res) => {
    const answer = () => {
      // A request held while its reader died has nobody left to answer.
      if (res.destroyed) return;
      const delay = delays[new URL(req.url ?? '/', 'http://x').pathname] ?? 0;
      if (delay) setTimeout(() => handler(req, res), delay);
      else handler(req, res);
    };
    if (gate) gate.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits: (path) => hits.get(path) ?? 0,
    hold: () => { gate ??= []; },
    release: () => {
      const waiting = gate ?? [];
      gate = null;
      for (const answer of waiting) answer();
    },
    held: () => gate?.length ?? 0,
    close: () => new Promise((resolve) => { gate = null; server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
