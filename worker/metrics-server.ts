/**
 * The standalone worker's Prometheus endpoint: a bare node:http listener answering `GET /metrics`
 * with this process's prom-client registry (core/metrics.ts: source reads by marketplace and
 * outcome, webhook attempts, monitoring deliveries, process metrics). Any other path is 404, any
 * other method 405. Under `npm start` the API's /metrics already serves the same registry, so only
 * `node dist/worker/main.js` starts this (WORKER_METRICS_PORT, default 9464; 0 = none).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../core/logger.js';
import { registry } from '../core/metrics.js';

/** A listening metrics endpoint: its base URL (`http://127.0.0.1:<port>`) and an idempotent `stop()`. */
export interface MetricsServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * Listens on `port` (0 → any free port) at `host` (default all interfaces, so a scraper in another
 * container reaches it).
 * @throws the listen error (e.g. EADDRINUSE) when the port cannot be bound.
 */
export async function startMetricsServer(options: { port: number; host?: string; logger: Logger }): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET, HEAD' }).end('method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        options.logger.error({ err: error }, 'could not collect metrics');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  options.logger.info({ port }, 'worker metrics listening on /metrics');
  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}
