/**
 * Webhooks that cannot be abused (api-spec.md "Events", operations-contract.md `WEBHOOK_PORTS`) over
 * the whole stack: real Temporal dev server, real Chromium on the synthetic replay pages, PGlite,
 * and a local receiver on 127.0.0.1 exempted by WEBHOOK_ALLOWLIST. Only ports 80 and 443 are
 * accepted and delivered to; a disabled account's deliveries stop; and one account whose receiver
 * never answers (every attempt runs into WEBHOOK_TIMEOUT) delays neither another account's delivery
 * nor a monitoring run.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, setDisabled } from '../../api/admin/accounts.js';
import type { Stack } from '../../scripts/stack.js';
import type { WebhookDeliveryInput, WebhookDeliveryOutcome } from '../../core/domain/webhook-messages.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const TIMEOUT_MS = 3_000;
const ACCOUNT_SLOTS = 4;
/** Deliveries of the flooding account: more than the main worker's 50 activity slots. */
const FLOOD_TASKS = 100;
const MONITOR_INTERVAL_MS = 1_000;

interface Received {
  url: string;
  at: number;
}

/**
 * The receiver: `/hang/...` never answers (the attempt times out), `/fail/...` answers 500, every
 * other path 200. Before answering the first `/disable/...` request it runs `onDisable`.
 */
async function startReceiver(onDisable: () => Promise<void>) {
  const received: Received[] = [];
  let open = 0;
  let maxOpen = 0;
  let disabling: Promise<void> | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const url = req.url ?? '/';
      received.push({ url, at: Date.now() });
      const kind = url.split('/')[1];
      if (kind === 'hang') {
        open++;
        maxOpen = Math.max(maxOpen, open);
        res.on('close', () => { open--; });
        return;
      }
      if (kind === 'disable') {
        disabling ??= onDisable();
        void disabling.then(() => res.writeHead(500).end('no'));
        return;
      }
      if (kind === 'fail') res.writeHead(500).end('no');
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    at: (prefix: string) => received.filter((r) => r.url.startsWith(prefix)),
    maxOpenHanging: () => maxOpen,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('webhook ports, disabled accounts and fairness between accounts', () => {
  let running: TestStack;
  let stack: Stack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let temporal: Client;

  const account = async (login: string, balance = 1): Promise<{ id: number; api: ApiClient }> => {
    const created = await createAccount(stack.db, { login, email: `${login}@example.com`, balance });
    return { id: created.id, api: apiClient(stack.api.url, { key: created.api_key }) };
  };
  const deliveries = (taskId: string) => stack.db.prisma.webhookDelivery.findMany({ where: { taskId }, orderBy: [{ kind: 'asc' }, { attempt: 'asc' }] });
  const outcome = async (workflowId: string) => {
    const handle = temporal.workflow.getHandle(workflowId);
    await waitFor(() => handle.describe().then(() => true, () => false), 90_000);
    return (await handle.result()) as WebhookDeliveryOutcome;
  };
  const taskDone = async (api: ApiClient, id: string) => waitFor(async () => {
    const got = await api.get(`/v1/retail/product/task_get/${id}`);
    return got.body.tasks[0].status_code === 20000;
  }, 90_000);

  beforeAll(async () => {
    receiver = await startReceiver(async () => { await setDisabled(stack.db, { login: 'dee', disabled: true }); });
    running = await startTestStack({
      env: {
        SOURCE_READ_ATTEMPTS: '2', WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}`, WEBHOOK_RETRY_DELAYS: '1s', WEBHOOK_TIMEOUT: `${TIMEOUT_MS}ms`,
        WEBHOOK_ACCOUNT_SLOTS: String(ACCOUNT_SLOTS),
        MONITORING_INTERVALS: `hourly=${MONITOR_INTERVAL_MS}ms,every_6h=1h,daily=1h`,
      },
    });
    ({ stack, client: temporal } = running);
  });

  afterAll(async () => {
    await running?.stop();
    await receiver?.close();
  });

  it('only ports 80 and 443 are accepted at task_post (40501 naming the field) and delivered to; allowlisted hosts are exempt', async () => {
    const { api } = await account('ports');
    const res = await api.post('/v1/retail/product/task_post', [
      { asin: 'B0000000P1', marketplace: 'de', postback_url: 'https://hooks.example.com:8443/post' },
      { asin: 'B0000000P1', marketplace: 'de', pingback_url: 'http://hooks.example.com:8080/ping?id=$id' },
      { asin: 'B0000000P1', marketplace: 'de', postback_url: 'http://203.0.113.9:6379/' },
      { asin: 'B0000000P1', marketplace: 'de', postback_url: 'https://hooks.example.com/post', pingback_url: 'http://hooks.example.com:80/ping?id=$id' },
      { asin: 'B0000000P1', marketplace: 'de', postback_url: `${receiver.url}/ok/ports` },
    ]);
    expect(res.body.tasks.map((t: any) => [t.status_code, t.status_message])).toEqual([
      [40501, 'Invalid field: `postback_url`.'],
      [40501, 'Invalid field: `pingback_url`.'],
      [40501, 'Invalid field: `postback_url`.'],
      [20100, 'Task Created.'],
      [20100, 'Task Created.'],
    ]);

    // At delivery too: a task whose URL names another port (accepted under another configuration)
    // is refused at its first attempt, not requested and not retried.
    const id = res.body.tasks[4].id as string;
    await waitFor(async () => receiver.at('/ok/ports').length > 0, 90_000);
    await stack.db.prisma.task.update({ where: { id }, data: { postbackUrl: 'http://hooks.example.com:8080/ok/other-port' } });
    await temporal.workflow.start('webhookDelivery', {
      taskQueue: stack.config.TEMPORAL_TASK_QUEUE, workflowId: `redeliver:${id}`,
      args: [{ taskId: id, kind: 'postback', retryDelaysMs: [1_000], timeoutMs: TIMEOUT_MS } satisfies WebhookDeliveryInput],
    });
    expect(await outcome(`redeliver:${id}`)).toEqual({ taskId: id, kind: 'postback', attempts: 1, outcome: 'refused' });
    const rows = await stack.db.prisma.webhookDelivery.findMany({ where: { taskId: id }, orderBy: { id: 'asc' } });
    expect(rows.map((d) => [d.attempt, d.outcome, d.error])).toEqual([[1, 'delivered', null], [1, 'refused', 'URL refused: port (port 8080)']]);
  });

  it('a disabled account\'s deliveries stop: the retry after the account was disabled is not sent', async () => {
    const dee = await account('dee');
    const res = await dee.api.post('/v1/retail/product/task_post', [{ asin: 'B0000000U1', marketplace: 'uk', postback_url: `${receiver.url}/disable/post` }]);
    const id = res.body.tasks[0].id as string;
    // The receiver disables the account before answering the first attempt with 500.
    expect(await outcome(`webhook:${id}:postback`)).toEqual({ taskId: id, kind: 'postback', attempts: 2, outcome: 'refused' });
    expect(receiver.at('/disable/post')).toHaveLength(1);
    const rows = await deliveries(id);
    expect(rows.map((d) => [d.attempt, d.outcome, d.httpStatus, d.error])).toEqual([[1, 'failed', 500, 'HTTP 500'], [2, 'refused', null, 'account disabled']]);
    // Both kinds: a delivery that begins after the account was disabled sends nothing at all.
    const later = await stack.db.prisma.task.create({
      data: { ...(await stack.db.prisma.task.findUniqueOrThrow({ where: { id }, omit: { id: true, data: true } })), data: {}, id: randomUUID(), postbackUrl: `${receiver.url}/ok/late-post`, pingbackUrl: `${receiver.url}/ok/late-ping` },
    });
    for (const kind of ['postback', 'pingback'] as const) {
      await temporal.workflow.start('webhookDelivery', {
        taskQueue: stack.config.TEMPORAL_TASK_QUEUE, workflowId: `webhook:${later.id}:${kind}`,
        args: [{ taskId: later.id, kind, retryDelaysMs: [1_000], timeoutMs: TIMEOUT_MS } satisfies WebhookDeliveryInput],
      });
      expect(await outcome(`webhook:${later.id}:${kind}`)).toEqual({ taskId: later.id, kind, attempts: 1, outcome: 'refused' });
    }
    expect(receiver.at('/ok/late-')).toHaveLength(0);
  });

  it('an account whose receiver never answers delays neither another account\'s delivery nor a monitoring run', async () => {
    const flooder = await account('flooder');
    const other = await account('other');
    const watcher = await account('watcher');
    // A stored observation younger than the reuse window: the tasks below complete at once.
    const warm = await flooder.api.post('/v1/retail/product/task_post', [{ asin: 'B0000000P1', marketplace: 'de' }]);
    await taskDone(flooder.api, warm.body.tasks[0].id);
    const add = await watcher.api.post('/v1/retail/monitoring/add', [{ asin: 'B0000000D1', marketplace: 'com', frequency: 'hourly' }]);
    const subscriptionId = add.body.tasks[0].result[0].id as number;
    const monitored = () => stack.db.prisma.observation.count({ where: { subscriptionId } });
    await waitFor(async () => (await monitored()) >= 2, 30_000, 100);

    // Two deliveries per task, each held until WEBHOOK_TIMEOUT, then once more after 1 s.
    const flood = Array.from({ length: FLOOD_TASKS }, (_, i) => ({
      asin: 'B0000000P1', marketplace: 'de', tag: String(i), postback_url: `${receiver.url}/hang/post/${i}`, pingback_url: `${receiver.url}/hang/ping/$tag`,
    }));
    const posted = await flooder.api.post('/v1/retail/product/task_post', flood);
    expect(new Set(posted.body.tasks.map((t: any) => t.status_code))).toEqual(new Set([20100])); // completed at once from the stored observation
    await waitFor(async () => receiver.at('/hang/').length >= ACCOUNT_SLOTS, 30_000, 50);
    // The flooder asks for more than its share: one of its deliveries was turned away for lack of a slot.
    const flooderIds = posted.body.tasks.map((t: any) => t.id as string);
    await waitFor(async () => {
      for (const taskId of flooderIds.slice(-10)) {
        for (const kind of ['postback', 'pingback']) {
          const pending = (await temporal.workflow.getHandle(`webhook:${taskId}:${kind}`).describe().catch(() => null))?.raw.pendingActivities ?? [];
          if (pending.some((a) => a.lastFailure?.applicationFailureInfo?.type === 'WebhookAccountBusy')) return true;
        }
      }
      return false;
    }, 30_000, 100);

    // Another account's delivery arrives long before any of the flooder's attempts has timed out.
    const monitoredBefore = await monitored();
    const sentAt = Date.now();
    const res = await other.api.post('/v1/retail/product/task_post', [{ asin: 'B0000000P1', marketplace: 'de', postback_url: `${receiver.url}/ok/other` }]);
    expect(res.body.tasks[0].status_code).toBe(20100);
    const [arrived] = await waitFor(async () => { const got = receiver.at('/ok/other'); return got.length ? got : null; }, 60_000, 20);
    const latency = arrived!.at - sentAt;

    // Monitoring goes on at its interval meanwhile (with every attempt held, the flooder's
    // deliveries alone would keep 50 slots busy for 2 × 200 / 50 × 3 s).
    const windowMs = 3 * TIMEOUT_MS;
    /** Waits for `fn` until the window since `sentAt` closes; the last value when it never held. */
    const withinWindow = async (fn: () => Promise<number>, enough: number) =>
      waitFor(async () => { const n = await fn(); return n >= enough ? n : null; }, Math.max(0, sentAt + windowMs - Date.now()), 50).catch(fn);
    const monitoredDuring = await withinWindow(async () => (await monitored()) - monitoredBefore, 4);
    const timedOut = await withinWindow(() => stack.db.prisma.webhookDelivery.count({ where: { taskId: { in: flooderIds }, error: `timeout after ${TIMEOUT_MS} ms` } }), ACCOUNT_SLOTS);
    console.log(`other account's delivery: ${latency} ms; monitoring runs in ${windowMs} ms: ${monitoredDuring}; flooder's attempts under way at most: ${receiver.maxOpenHanging()}`);
    expect(latency).toBeLessThan(TIMEOUT_MS);
    expect(monitoredDuring).toBeGreaterThanOrEqual(4);
    // The flooder never held more than its share of the webhook slots ...
    expect(receiver.maxOpenHanging()).toBeLessThanOrEqual(ACCOUNT_SLOTS);
    // ... and its deliveries still go on, one share at a time.
    expect(timedOut).toBeGreaterThanOrEqual(ACCOUNT_SLOTS);
    await watcher.api.post('/v1/retail/monitoring/delete', [{ id: subscriptionId }]);
  }, 180_000);
});
