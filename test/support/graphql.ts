/**
 * GraphQL test helpers: a client that posts operations over HTTP (the Koa app's /graphql) or
 * straight into a yoga instance (`yoga.fetch`), an app with monitoring on a test database, and a
 * Prisma client that counts the SQL statements it sends.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { buildApp } from '../../api/app.js';
import type { GraphQLServer } from '../../api/graphql/yoga.js';
import type { MonitorLauncher } from '../../api/services/monitor-launcher.js';
import type { TaskLauncher } from '../../api/services/task-launcher.js';
import { loadConfig, type Config } from '../../core/config.js';
import type { PrismaClient } from '../../core/db/prisma.js';
import { createLogger } from '../../core/logger.js';
import { flushUsage } from '../../core/usage.js';
import { PrismaClient as GeneratedPrismaClient } from '../../prisma/generated/client/client.js';

export interface GqlResponse {
  status: number;
  body: any;
  headers: Headers;
}

export interface GqlClient {
  (query: string, variables?: Record<string, unknown>, init?: { method?: 'GET' | 'POST'; accept?: string }): Promise<GqlResponse>;
}

/** Basic (login + key) or Bearer (key) Authorization header value. */
export function authorization(auth: { login?: string; key: string }): string {
  return auth.login ? `Basic ${Buffer.from(`${auth.login}:${auth.key}`).toString('base64')}` : `Bearer ${auth.key}`;
}

/** A client of `target`: a base URL (HTTP to `<url>/graphql`) or a yoga instance (yoga.fetch). */
export function gqlClient(target: string | GraphQLServer, auth?: { login?: string; key: string }): GqlClient {
  return async (query, variables, init = {}) => {
    const method = init.method ?? 'POST';
    const headers: Record<string, string> = { accept: init.accept ?? 'application/json' };
    if (auth) headers.authorization = authorization(auth);
    let url = `${typeof target === 'string' ? target : 'http://localhost'}/graphql`;
    let body: string | undefined;
    if (method === 'GET') {
      url += `?${new URLSearchParams({ query, ...(variables ? { variables: JSON.stringify(variables) } : {}) })}`;
    } else {
      headers['content-type'] = 'application/json';
      body = JSON.stringify({ query, variables });
    }
    const res = typeof target === 'string' ? await fetch(url, { method, headers, body }) : await target.fetch(url, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    return { status: res.status, body: parsed as any, headers: res.headers };
  };
}

/** A monitor launcher that records what the API asked for. */
export function recordingMonitors(): MonitorLauncher & { ensured: number[]; stopped: number[] } {
  const ensured: number[] = [];
  const stopped: number[] = [];
  return {
    ensured,
    stopped,
    start: async (target) => { ensured.push(target.subscriptionId); },
    configure: async (target) => { ensured.push(target.subscriptionId); },
    resume: async () => undefined,
    stop: async (id) => { stopped.push(id); },
  };
}

/** A task launcher that records workflow starts (Temporal is not under test here). */
export function recordingLauncher(): TaskLauncher & { started: string[] } {
  const started: string[] = [];
  return {
    started,
    start: async (input) => { started.push(input.taskId); },
    startWebhooks: async () => undefined,
    waitFor: async () => false,
    cancel: async () => undefined,
  };
}

/** The whole Koa app (REST + /graphql) with monitoring, on `prisma`, listening on a free port. */
export async function listenApp(prisma: PrismaClient, options: { dataDir: string; env?: Record<string, string> }): Promise<{
  url: string; config: Config; monitors: ReturnType<typeof recordingMonitors>; launcher: ReturnType<typeof recordingLauncher>; close(): void;
}> {
  const config = loadConfig({ DATA_DIR: options.dataDir, LOG_LEVEL: 'silent', ...options.env });
  const monitors = recordingMonitors();
  const launcher = recordingLauncher();
  const server: Server = buildApp({ config, prisma, launcher, monitors, logger: createLogger('silent') }).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, config, monitors, launcher, close: () => server.close() };
}

/**
 * A Prisma client whose every SQL statement is recorded in `statements` (the pg clients of its
 * own pool are wrapped; driver adapters have no `$on('query')`).
 */
export function countingPrisma(url: string): { prisma: PrismaClient; statements: string[]; close(): Promise<void> } {
  const statements: string[] = [];
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text?: string } | undefined;
      statements.push(typeof first === 'string' ? first : (first?.text ?? ''));
      return query(...args);
    };
  });
  const prisma = new GeneratedPrismaClient({ adapter: new PrismaPg(pool) });
  return { prisma, statements, close: async () => { await flushUsage(prisma); await prisma.$disconnect(); await pool.end().catch(() => undefined); } };
}
