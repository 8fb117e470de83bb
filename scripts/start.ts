/**
 * `npm start`: the whole service on embedded defaults, in the foreground; Ctrl-C stops everything
 * it started (operations-contract.md "Commands").
 */
import getPort from 'get-port';
import { loadConfig } from '../core/config.js';
import { createLogger } from '../core/logger.js';
import { startStack } from './stack.js';

const configured = loadConfig();
// /metrics is never public on the API port: without METRICS_TOKEN or METRICS_LISTEN, the embedded
// default serves it on a loopback port of its own (9464 if free), printed below.
const config = configured.METRICS_TOKEN || configured.METRICS_LISTEN
  ? configured
  : Object.freeze({ ...configured, METRICS_LISTEN: { host: '127.0.0.1', port: await getPort({ port: 9464, host: '127.0.0.1' }) } });
const logger = createLogger(config.LOG_LEVEL);
const t0 = performance.now();
// The Temporal CLI's own default frontend port, so `temporal workflow list` works without flags.
const stack = await startStack(config, logger, { temporalPort: await getPort({ port: 7233 }) });
logger.info(
  {
    api: stack.api.url,
    metrics: stack.api.metricsUrl ? `${stack.api.metricsUrl}/metrics` : `${stack.api.url}/metrics (Bearer METRICS_TOKEN)`,
    database: stack.db.embedded ? `embedded PGlite in ${config.DATA_DIR}/pglite` : 'DATABASE_URL',
    temporal: stack.temporalAddress,
    temporal_ui: stack.temporalUiUrl,
    source: config.RETAIL_SOURCE_ORIGIN ?? 'the live marketplaces',
    startup_ms: Math.round(performance.now() - t0),
  },
  `retail-data-api listening on ${stack.api.url}`,
);
// The same facts for a person at a terminal: where to go next.
process.stderr.write(
  [
    '',
    `retail-data-api is ready (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    `  API            ${stack.api.url}   (GET /ready, /health)`,
    `  API reference  ${stack.api.url}/docs`,
    `  GraphQL        ${stack.api.url}/graphql`,
    `  Dashboard      ${stack.api.url}/app   (log in with an API key)`,
    stack.api.metricsUrl
      ? `  Metrics        ${stack.api.metricsUrl}/metrics${config.METRICS_TOKEN ? '   (Bearer METRICS_TOKEN)' : ''}`
      : `  Metrics        ${stack.api.url}/metrics   (Authorization: Bearer <METRICS_TOKEN>)`,
    ...(stack.temporalUiUrl ? [`  Temporal UI    ${stack.temporalUiUrl}   (every task is a workflow)`] : []),
    `  first account  npm run -s admin -- account create --login demo --email demo@example.com --balance 10`,
    '  Ctrl-C stops everything.',
    '',
  ].join('\n') + '\n',
);
for (const line of config.WEBHOOK_ALLOWLIST) logger.warn({ host: line }, 'WEBHOOK_ALLOWLIST exempts this host from the private-address and port rules (local testing only)');

let stopping = false;
const shutdown = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'stopping');
  await stack.stop();
  process.exit(0);
};
process.once('SIGINT', () => void shutdown('SIGINT'));
process.once('SIGTERM', () => void shutdown('SIGTERM'));
