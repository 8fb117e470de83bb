/**
 * Webhooks end to end (api-spec.md "Events") over the whole stack: real Temporal dev server, real
 * Chromium reading the synthetic replay pages, PGlite, and a local receiver on 127.0.0.1 exempted
 * by WEBHOOK_ALLOWLIST. Delays are scaled (1s, 2s, 3s; 2 s timeout) so the retry schedule is
 * measurable in seconds.
 */
import getPort from 'get-port';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { API_VERSION } from '../../core/version.js';
import { systemResolver, type HostResolver } from '../../core/webhooks/pinned-request.js';
import type { Stack } from '../../scripts/stack.js';
import type { WebhookDeliveryOutcome } from '../../core/domain/webhook-messages.js';
import { apiClient, waitFor, type ApiClient } from '../support/http.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { signatureValid, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const DELAYS = [1_000, 2_000, 3_000];
const TIMEOUT_MS = 2_000;
/** Measured gaps: never shorter than the delay (the timer starts after the failed attempt ends);
 *  the slack above it absorbs recording, scheduling and a loaded 2-core machine. */
const EARLY_MS = 50;
const LATE_MS = 3_000;
/** A public-looking name the test's resolver maps to 127.0.0.1 (DNS rebinding stand-in). */
const REBOUND_HOST = 'hooks.rebind.example';

/** An envelope without its elapsed-time fields. */
function withoutTimes(envelope: any) {
  return { ...envelope, time: undefined, tasks: envelope.tasks.map((t: any) => ({ ...t, time: undefined })) };
}

describe('webhooks over the whole stack', () => {
  let running: TestStack;
  let stack: Stack;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let secret: string;
  let temporal: Client;
  const ids: Record<string, string> = {};
  const deliveries = (taskId: string) => stack.db.prisma.webhookDelivery.findMany({ where: { taskId }, orderBy: [{ kind: 'asc' }, { attempt: 'asc' }] });
  /** The delivery workflow's result, once the task has finished and started it. */
  const outcome = async (taskId: string, kind: 'postback' | 'pingback') => {
    const handle = temporal.workflow.getHandle(`webhook:${taskId}:${kind}`);
    await waitFor(() => handle.describe().then(() => true, () => false), 90_000);
    return (await handle.result()) as WebhookDeliveryOutcome;
  };

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    const webhookResolver: HostResolver = async (host) => (host === REBOUND_HOST ? [{ address: '127.0.0.1', family: 4 }] : systemResolver(host));
    running = await startTestStack({
      env: {
        SOURCE_READ_ATTEMPTS: '2', WEBHOOK_ALLOWLIST: `127.0.0.1:${receiver.port}`, WEBHOOK_RETRY_DELAYS: '1s,2s,3s', WEBHOOK_TIMEOUT: '2s',
        // The rebinding stand-in is not allowlisted and listens on the receiver's port.
        WEBHOOK_PORTS: `80,443,${receiver.port}`,
      },
      stack: { temporalUiPort: await getPort(), webhookResolver },
    });
    ({ stack, client: temporal } = running);
    const account = await createAccount(stack.db, { login: 'hooks', email: 'hooks@example.com', balance: 1 });
    secret = (await stack.db.prisma.account.findUniqueOrThrow({ where: { login: 'hooks' } })).webhookSecret;
    api = apiClient(stack.api.url, { key: account.api_key });
    const r = receiver.url;
    const tasks = {
      signed: { asin: 'B0000000P1', marketplace: 'de', tag: 'sig test/é', postback_url: `${r}/ok/post`, pingback_url: `${r}/ok/ping/$id?tag=$tag&x=ä b#frag` },
      flaky: { asin: 'B0000000D1', marketplace: 'com', postback_url: `${r}/flaky` },
      failing: { asin: 'B0000000T1', marketplace: 'com', postback_url: `${r}/fail` },
      hanging: { asin: 'B0000000N1', marketplace: 'com', pingback_url: `${r}/hang?id=$id` },
      redirected: { asin: 'B0000000J1', marketplace: 'jp', postback_url: `${r}/redirect` },
      rebound: { asin: 'B0000000U1', marketplace: 'uk', postback_url: `http://${REBOUND_HOST}:${receiver.port}/rebound` },
      notFound: { asin: 'B0000000F1', marketplace: 'com', postback_url: `${r}/ok/not-found` },
      captcha: { asin: 'B0000000C1', marketplace: 'br', postback_url: `${r}/ok/captcha` },
    };
    const res = await api.post('/v1/retail/product/task_post', Object.values(tasks));
    expect(res.body.tasks.map((t: any) => t.status_code)).toEqual(Object.values(tasks).map(() => 20100));
    Object.keys(tasks).forEach((name, i) => { ids[name] = res.body.tasks[i].id; });
  });

  afterAll(async () => {
    await running?.stop();
    await receiver?.close();
  });

  it('postback: a signed POST of exactly the task_get envelope; pingback: a signed GET of the expanded, encoded URL', async () => {
    const id = ids.signed!;
    const [post] = await waitFor(async () => { const got = receiver.at('/ok/post'); return got.length ? got : null; }, 90_000);
    const [ping] = await waitFor(async () => { const got = receiver.at('/ok/ping/'); return got.length ? got : null; });
    expect(post!.method).toBe('POST');
    expect(post!.headers['content-type']).toBe('application/json');
    expect(post!.headers['user-agent']).toBe(`retail-data-api-webhooks/${API_VERSION}`);
    expect(signatureValid(post!.headers['x-signature'], post!.body, secret)).toBe(true);
    expect(signatureValid(post!.headers['x-signature'], post!.body, 'another secret')).toBe(false);
    const got = await api.get(`/v1/retail/product/task_get/${id}`);
    expect(got.body.tasks[0].status_code).toBe(20000);
    expect(withoutTimes(JSON.parse(post!.body))).toEqual(withoutTimes(got.body));

    expect(ping!.method).toBe('GET');
    expect(ping!.body).toBe('');
    expect(ping!.headers['user-agent']).toBe(`retail-data-api-webhooks/${API_VERSION}`);
    expect(ping!.url).toBe(`/ok/ping/${id}?tag=sig%20test%2F%C3%A9&x=%C3%A4%20b`);
    const requested = `${receiver.url}${ping!.url}`;
    expect(signatureValid(ping!.headers['x-signature'], requested, secret)).toBe(true);
    const rows = await deliveries(id);
    expect(rows.map((d) => [d.kind, d.attempt, d.outcome, d.httpStatus])).toEqual([['pingback', 1, 'delivered', 200], ['postback', 1, 'delivered', 200]]);
    expect(rows.find((d) => d.kind === 'pingback')!.url).toBe(requested);
  });

  it('a receiver answering 500 then 200 gets exactly 2 deliveries, the second after the first retry delay', async () => {
    const id = ids.flaky!;
    expect(await outcome(id, 'postback')).toMatchObject({ outcome: 'delivered', attempts: 2 });
    const got = receiver.at('/flaky');
    expect(got).toHaveLength(2);
    const gap = got[1]!.at - got[0]!.at;
    console.log(`500-then-200 retry gap: ${gap} ms (configured ${DELAYS[0]} ms)`);
    expect(gap).toBeGreaterThanOrEqual(DELAYS[0]! - EARLY_MS);
    expect(gap).toBeLessThan(DELAYS[0]! + LATE_MS);
    expect((await deliveries(id)).map((d) => [d.attempt, d.outcome, d.httpStatus])).toEqual([[1, 'failed', 500], [2, 'delivered', 200]]);
  });

  it('a failing receiver is retried after each configured delay, then never again; the task stays in tasks_ready', async () => {
    const id = ids.failing!;
    expect(await outcome(id, 'postback')).toEqual({ taskId: id, kind: 'postback', attempts: 4, outcome: 'failed' });
    const got = receiver.at('/fail');
    expect(got).toHaveLength(4);
    const gaps = got.slice(1).map((r, i) => r.at - got[i]!.at);
    console.log(`always-500 retry gaps: ${gaps.join(', ')} ms (configured ${DELAYS.join(', ')} ms)`);
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(DELAYS[i]! - EARLY_MS);
      expect(gap).toBeLessThan(DELAYS[i]! + LATE_MS);
    });
    const rows = await deliveries(id);
    expect(rows.map((d) => [d.attempt, d.outcome, d.httpStatus, d.error])).toEqual([1, 2, 3, 4].map((n) => [n, 'failed', 500, 'HTTP 500']));
    expect(rows.every((d) => d.durationMs >= 0 && d.createdAt instanceof Date)).toBe(true);
    // Never again: the delivery's workflow has ended after exactly 4 attempts, so nothing is left
    // that could schedule a fifth.
    const handle = temporal.workflow.getHandle(`webhook:${id}:postback`);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
    const scheduled = ((await handle.fetchHistory()).events ?? []).filter((e) => e.activityTaskScheduledEventAttributes);
    expect(scheduled).toHaveLength(4);
    expect(receiver.at('/fail')).toHaveLength(4);
    const ready = await api.get('/v1/retail/product/tasks_ready');
    expect(ready.body.tasks[0].result.map((r: any) => r.id)).toContain(id);
  });

  it('a hanging receiver times out: the attempt is recorded as failed with a timeout, then retried', async () => {
    const id = ids.hanging!;
    expect(await outcome(id, 'pingback')).toMatchObject({ outcome: 'delivered', attempts: 2 });
    const [first, second] = await deliveries(id);
    expect(first).toMatchObject({ kind: 'pingback', attempt: 1, outcome: 'failed', httpStatus: null, error: `timeout after ${TIMEOUT_MS} ms` });
    expect(first!.durationMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(first!.durationMs).toBeLessThan(TIMEOUT_MS + 1_500);
    expect(second).toMatchObject({ attempt: 2, outcome: 'delivered', httpStatus: 200 });
    expect(receiver.at('/hang')).toHaveLength(2);
  });

  it('a redirect is not followed: 302 is a failed attempt and the target receives nothing', async () => {
    const id = ids.redirected!;
    expect(await outcome(id, 'postback')).toMatchObject({ outcome: 'failed', attempts: 4 });
    expect(receiver.at('/redirect')).toHaveLength(4);
    expect(receiver.at('/target')).toHaveLength(0);
    const rows = await deliveries(id);
    expect(rows.every((d) => d.outcome === 'failed' && d.httpStatus === 302)).toBe(true);
  });

  it('a name resolving to a loopback address at delivery time is refused, not requested and not retried', async () => {
    const id = ids.rebound!;
    expect(await outcome(id, 'postback')).toEqual({ taskId: id, kind: 'postback', attempts: 1, outcome: 'refused' });
    expect(receiver.at('/rebound')).toHaveLength(0);
    const rows = await deliveries(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempt: 1, outcome: 'refused', httpStatus: null, error: 'resolves to non-public address 127.0.0.1 (loopback)' });
    // The result stays available through task_get.
    const got = await api.get(`/v1/retail/product/task_get/${id}`);
    expect(got.body.tasks[0].status_code).toBe(20000);
  });

  it('failed tasks are delivered too, the body carrying their code (40402, 50301)', async () => {
    for (const [name, code, pathPrefix] of [['notFound', 40402, '/ok/not-found'], ['captcha', 50301, '/ok/captcha']] as const) {
      const [post] = await waitFor(async () => { const got = receiver.at(pathPrefix); return got.length ? got : null; }, 60_000);
      const body = JSON.parse(post!.body);
      expect(body.tasks[0]).toMatchObject({ id: ids[name], status_code: code, cost: 0, result: null });
      expect(signatureValid(post!.headers['x-signature'], post!.body, secret)).toBe(true);
      const got = await api.get(`/v1/retail/product/task_get/${ids[name]}`);
      expect(withoutTimes(body)).toEqual(withoutTimes(got.body));
    }
  });

  it('a task completed at once from the reuse window is delivered through a workflow started by the API', async () => {
    const res = await api.post('/v1/retail/product/task_post', [{ asin: 'B0000000P1', marketplace: 'de', postback_url: `${receiver.url}/ok/reused` }]);
    const id = res.body.tasks[0].id;
    const [post] = await waitFor(async () => { const got = receiver.at('/ok/reused'); return got.length ? got : null; }, 30_000);
    const body = JSON.parse(post!.body);
    expect(body.tasks[0]).toMatchObject({ id, status_code: 20000 });
    expect(signatureValid(post!.headers['x-signature'], post!.body, secret)).toBe(true);
    expect(await outcome(id, 'postback')).toMatchObject({ outcome: 'delivered', attempts: 1 });
    expect(withoutTimes(body)).toEqual(withoutTimes((await api.get(`/v1/retail/product/task_get/${id}`)).body));
  });

  it('the Temporal Web UI lists each delivery as its own workflow', async () => {
    const res = await fetch(`${stack.temporalUiUrl}/api/v1/namespaces/default/workflows`);
    const listed = (await res.json()) as { executions: { execution: { workflowId: string }; type: { name: string } }[] };
    const byId = new Map(listed.executions.map((e) => [e.execution.workflowId, e.type.name]));
    for (const name of ['signed', 'flaky', 'failing', 'redirected', 'rebound']) expect(byId.get(`webhook:${ids[name]}:postback`), name).toBe('webhookDelivery');
    expect(byId.get(`webhook:${ids.signed}:pingback`)).toBe('webhookDelivery');
    expect(byId.get(ids.signed!)).toBe('productTask');
  });
});
