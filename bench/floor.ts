/**
 * The floor of task_get on this machine and database: the same answer (authenticate by key hash,
 * then the task with its observation) as two prepared SQL statements through `pg`, in a bare Koa
 * app in the service's process, with the service's pool size. No rate limiting, metering or Prisma:
 * what the recommended fixes in BENCHMARKS.md aim at. `bench/api.ts` measures it beside the real
 * task_get in the same run.
 */
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import Koa from 'koa';
import pg from 'pg';

/**
 * Starts the floor app on a free port. `prepared`: use named (server-side prepared) statements —
 * not on PGlite, whose socket server shares one session between connections.
 */
export async function startFloorServer(databaseUrl: string, poolSize: number, prepared: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const named = (name: string) => (prepared ? { name } : {});
  let closing = false;
  const app = new Koa();
  // Requests the load generator abandoned may still run while the floor closes: answer them 503 quietly.
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!closing) throw error;
      ctx.status = 503;
    }
  });
  app.use(async (ctx) => {
    const header = ctx.get('authorization');
    const decoded = Buffer.from(header.replace(/^Basic /, ''), 'base64').toString('utf8');
    const key = decoded.slice(decoded.indexOf(':') + 1);
    const auth = await pool.query({
      ...named('floor-auth'),
      text: 'SELECT k.id, k.revoked_at, a.id AS account_id, a.login, a.disabled FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1',
      values: [createHash('sha256').update(key).digest('hex')],
    });
    const account = auth.rows[0] as { account_id: number } | undefined;
    if (!account) {
      ctx.status = 401;
      return;
    }
    const id = ctx.path.split('/').at(-1)!;
    const task = await pool.query({
      ...named('floor-task'),
      text: 'SELECT t.id, t.status_code, t.status_message, t.data, row_to_json(o) AS observation FROM tasks t LEFT JOIN observations o ON o.id = t.observation_id WHERE t.id = $1 AND t.account_id = $2 AND t.expires_at > now()',
      values: [id, account.account_id],
    });
    const row = task.rows[0] as { id: string; status_code: number; status_message: string; data: unknown; observation: unknown } | undefined;
    if (!row) {
      ctx.status = 404;
      return;
    }
    ctx.body = { version: 'floor', status_code: 20000, tasks_count: 1, tasks: [{ id: row.id, status_code: row.status_code, status_message: row.status_message, data: row.data, result: [row.observation] }] };
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      closing = true;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise((resolve) => setTimeout(resolve, 500));
      await pool.end();
    },
  };
}
