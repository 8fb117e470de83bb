/**
 * Hostile bulk uploads (task_post with `text/csv` / `application/x-ndjson`) on the real PostgreSQL,
 * the companion of input-fuzz.test.ts for bodies that are not JSON: every column of a task_post
 * element (read from the OpenAPI document) holding each hostile text, in CSV and in JSON Lines;
 * bytes that are not UTF-8 (a lone surrogate's WTF-8 bytes among them); cells and rows past every
 * bound; 100,001 rows; broken CSV and headers. Whatever the answer: no 5xx, the balance moves by
 * exactly the cost the answer reports, the ledger sums to it, and an upload refused as a whole
 * stores nothing.
 */
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import { createOpenApiDocument } from '../../api/rest/openapi/document.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { BAD_TEXTS, restTargets } from '../support/fuzz.js';
import { accountMoney } from '../support/ledger.js';
import { describeNeeding, postgres } from '../support/prerequisites.js';

const ASIN = 'B0CHX1W1XY';
const postgresPrerequisite = await postgres();

let app: TestApp;
let account: { id: number; api_key: string };

interface Answer { status: number; body: any }

async function send(body: string | Uint8Array, type: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${app.url}/v1/retail/product/task_post`, {
    method: 'POST', headers: { authorization: `Bearer ${account.api_key}`, 'content-type': type, ...headers }, body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try { parsed = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, body: parsed };
}

/** Sends, then checks: no 5xx, money moved by exactly the reported cost, and (refused as a whole) nothing stored. */
async function sendSafely(label: string, body: string | Uint8Array, type: string, headers?: Record<string, string>): Promise<Answer> {
  const before = await accountMoney(app.prisma, { id: account.id });
  const batches = await app.prisma.batch.count();
  const answer = await send(body, type, headers);
  expect(answer.status, `${label}: ${JSON.stringify(answer.body).slice(0, 300)}`).toBeLessThan(500);
  const cost = typeof answer.body?.cost === 'number' ? answer.body.cost : 0;
  const after = await accountMoney(app.prisma, { id: account.id });
  expect(Math.round((before.balance - after.balance) * 1e6), label).toBe(Math.round(cost * 1e6));
  expect(Math.round(after.ledgerSum * 1e6), label).toBe(Math.round(after.balance * 1e6));
  if (answer.status !== 200) expect(await app.prisma.batch.count(), label).toBe(batches);
  return answer;
}

const csvCell = (value: string) => `"${value.replaceAll('"', '""')}"`;

beforeAll(async () => {
  if (postgresPrerequisite.missing) return;
  app = await startTestApp({ database: 'postgres' });
  account = await createAccount(app.db, { login: 'bulkfuzz', email: 'bulkfuzz@example.com', balance: 1000 });
  await app.prisma.account.update({ where: { id: account.id }, data: { tasksPerMinute: 1_000_000 } });
}, 120_000);

afterAll(async () => {
  await app?.close();
});

describeNeeding([postgresPrerequisite], 'hostile bulk uploads (PostgreSQL)', () => {
  const columns = restTargets(createOpenApiDocument())
    .filter((t) => t.operation === 'POST /v1/retail/product/task_post' && t.location === 'body')
    .map((t) => t.field);

  it('knows the task_post columns', () => {
    expect(columns).toEqual(['asin', 'marketplace', 'tag', 'postback_url', 'pingback_url']);
  });

  it.each(BAD_TEXTS.map((bad) => [bad.label, bad] as const))('every column, CSV and JSON Lines: %s', async (_label, bad) => {
    for (const column of columns) {
      const row = { asin: ASIN, marketplace: 'com', [column]: bad.value };
      const width = Object.keys(row).length;
      const csv = `${Object.keys(row).join(',')}\n${Object.values(row).map(csvCell).join(',')}\n${[ASIN, 'com', ...Array<string>(width - 2).fill('')].join(',')}\n`;
      const ndjson = `${JSON.stringify(row)}\n${JSON.stringify({ asin: ASIN, marketplace: 'com' })}\n`;
      for (const [format, body, type] of [['csv', csv, 'text/csv'], ['ndjson', ndjson, 'application/x-ndjson']] as const) {
        const label = `${format} ${column}: ${bad.label}`;
        const answer = await sendSafely(label, body, type);
        if (bad.kind === 'huge') {
          // Longer than a row may be (64 KiB): the upload is refused as a whole.
          expect(answer, label).toMatchObject({ status: 400, body: { status_code: 40000, status_message: 'Bad Request. Row 1 is longer than 65536 bytes.' } });
          continue;
        }
        expect(answer.status, label).toBe(200);
        const summary = answer.body.tasks[0].result[0];
        expect(summary.rows, label).toBe(2);
        // CSV has no escapes: fetch sends a lone surrogate as U+FFFD (the WTF-8 bytes are tested below).
        if (bad.kind === 'unstorable' && (format === 'ndjson' || bad.value.includes('\u0000'))) {
          expect(summary.errors, label).toEqual([{ row: 1, status_code: 40501, status_message: `Invalid field: \`${column}\`.` }]);
          expect(summary.accepted, label).toBe(1);
        }
      }
    }
  });

  it('bytes that are not UTF-8 (a lone surrogate written as WTF-8, a stray continuation byte) refuse the upload, uncharged', async () => {
    const wtf8 = Buffer.concat([Buffer.from(`asin,marketplace,tag\n${ASIN},com,a`), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('b\n')]);
    expect(await sendSafely('csv wtf-8', wtf8, 'text/csv')).toMatchObject({ status: 400, body: { status_code: 40000, status_message: 'Bad Request. The body is not valid UTF-8.' } });
    const stray = Buffer.concat([Buffer.from(`{"asin":"${ASIN}","marketplace":"com","tag":"`), Buffer.from([0x80]), Buffer.from('"}\n')]);
    expect((await sendSafely('ndjson stray byte', stray, 'application/x-ndjson')).status).toBe(400);
  });

  it('uploads refused as a whole: 100,001 rows, a body over the limit, broken CSV, bad headers, no rows', async () => {
    const many = `asin,marketplace\n${`${ASIN},com\n`.repeat(100_001)}`;
    expect(await sendSafely('100,001 rows', many, 'text/csv')).toMatchObject({ status: 400, body: { status_code: 40001, status_message: 'Too many rows in one upload (max 100000).' } });
    const manyLines = `{"asin":"${ASIN}","marketplace":"com"}\n`.repeat(100_001);
    expect((await sendSafely('100,001 lines', manyLines, 'application/x-ndjson')).body.status_code).toBe(40001);
    // A declared length past the limit is refused before the body is read.
    const declared = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${app.url}/v1/retail/product/task_post`, {
        method: 'POST', headers: { authorization: `Bearer ${account.api_key}`, 'content-type': 'text/csv', 'content-length': String(200 * 1_048_576) },
      }, (res) => { resolve(res.statusCode ?? 0); res.resume(); req.destroy(); });
      req.on('error', reject);
      req.write('asin,marketplace\n');
    });
    expect(declared).toBe(413);
    const cases: [string, string, string, number, string?][] = [
      ['unclosed quote', `asin,marketplace,tag\n${ASIN},com,"open\n`, 'text/csv', 40000],
      ['no asin column', `marketplace,tag\ncom,a\n`, 'text/csv', 40501, 'Invalid field: `asin`.'],
      ['no marketplace column', `asin\n${ASIN}\n`, 'text/csv', 40501, 'Invalid field: `marketplace`.'],
      ['repeated column', `asin,marketplace,ASIN\n${ASIN},com,x\n`, 'text/csv', 40000],
      ['NUL in a column name', `asin,marketplace,t\u0000g\n${ASIN},com,x\n`, 'text/csv', 40501, 'Invalid field: `t\uFFFDg`.'],
      ['header only', 'asin,marketplace\n', 'text/csv', 40000, 'Bad Request. The upload holds no rows.'],
      ['empty', '', 'text/csv', 40000],
      ['blank lines only', '\n\n  \n', 'application/x-ndjson', 40000],
      ['a row longer than 64 KiB', `asin,marketplace,tag\n${ASIN},com,${'x'.repeat(70_000)}\n`, 'text/csv', 40000],
      ['a line longer than 64 KiB', `{"asin":"${ASIN}","marketplace":"com","tag":"${'x'.repeat(70_000)}"}\n`, 'application/x-ndjson', 40000],
    ];
    for (const [label, body, type, code, message] of cases) {
      const answer = await sendSafely(label, body, type);
      expect(answer.status, label).toBe(400);
      expect(answer.body.status_code, label).toBe(code);
      if (message) expect(answer.body.status_message, label).toBe(message);
    }
  });

  it('a deeply nested JSON line and control characters fail their row only', async () => {
    const deep = `{"asin":"${ASIN}","marketplace":"com","x":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const answer = await sendSafely('deep line', `${deep}\n{"asin":"${ASIN}","marketplace":"com","tag":"\\u0001\\u001b[31m"}\n`, 'application/x-ndjson');
    const summary = answer.body.tasks[0].result[0];
    expect(summary).toMatchObject({ rows: 2, accepted: 1, errors: [{ row: 1, status_code: 40000 }] });
  });
});
