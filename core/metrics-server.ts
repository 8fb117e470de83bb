/**
 * A Prometheus endpoint of its own: a bare node:http listener answering `GET /metrics` with this
 * process's prom-client registry (core/metrics.ts). Any other path is 404, any other method 405;
 * with a `token` (METRICS_TOKEN) a request without `Authorization: Bearer <token>` is 401.
 *
 * Started by a standalone worker (`node dist/worker/main.js`, on WORKER_METRICS_PORT: source
 * reads, webhook attempts, monitoring deliveries, process metrics) and by an API process on
 * METRICS_LISTEN (api/server.ts: its whole registry, tasks by state included).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from './logger.js';
import { metricsAuthorized, registry } from './metrics.js';

/** A listening metrics endpoint: its base URL (`http://<host>:<port>`, loopback for a wildcard host) and an idempotent `stop()`. */
export interface MetricsServer {
  url: string;
  stop(): Promise<void>;
}

/** `host` as a URL authority: a wildcard becomes loopback, IPv6 is bracketed. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Listens on `port` (0 → any free port) at `host` (default all interfaces, so a scraper in another
 * container reaches it). `token`: the Bearer token required (none when undefined).
 * @throws the listen error (e.g. EADDRINUSE) when the port cannot be bound.
 */
export async function startMetricsServer(options: { port: number; host?: string; token?: string; logger: Logger }): Promise<MetricsServer> {
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
    if (!metricsAuthorized(req.headers.authorization, options.token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('unauthorized\n');
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
  const host = options.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${urlHost(host)}:${port}`;
  options.logger.info({ url: `${url}/metrics`, token: options.token !== undefined }, 'metrics listening on /metrics');
  let stopping: Promise<void> | undefined;
  return {
    url,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}
