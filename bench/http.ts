/**
 * HTTP load and calls, each from a process of its own so that the load generator and the client
 * never share the service's event loop: single calls through bench/client.ts (latency measured
 * outside the service) and autocannon runs through bench/load.ts.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuShare, cpuSnapshot, type CpuShare } from './machine.js';

/** The HTTP client process (bench/client.ts), started on first use. */
let client: { send(line: object): Promise<ClientAnswer> } | undefined;

/** One answer of the client process; `bytes` and `taskCodes` instead of `body` for a brief call. */
interface ClientAnswer { status: number; ms: number; body: string; bytes?: number; taskCodes?: number[]; error?: string }

function httpClient(): NonNullable<typeof client> {
  if (client) return client;
  const script = fileURLToPath(new URL('./client.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.unref();
  const waiting = new Map<number, (answer: ClientAnswer) => void>();
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const answer = JSON.parse(buffer.slice(0, nl)) as ClientAnswer & { id: number };
      buffer = buffer.slice(nl + 1);
      waiting.get(answer.id)?.(answer);
      waiting.delete(answer.id);
    }
  });
  (child.stdout as unknown as { unref?: () => void }).unref?.();
  let next = 0;
  client = {
    send: (line) =>
      new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ ...line, id })}\n`);
      }),
  };
  return client;
}

/**
 * One HTTP call, made one at a time by the client process (bench/client.ts) so that its latency
 * (ms, from sending to the last byte of the body) is measured outside the service's event loop.
 */
export async function call(url: string, auth: string, method: 'GET' | 'POST', body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  const answer = await httpClient().send({
    url, method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (answer.error) throw new Error(`${method} ${url} failed: ${answer.error}`);
  let parsed: unknown = answer.body;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    /* not JSON */
  }
  return { status: answer.status, body: parsed, ms: answer.ms };
}

/**
 * Like `call`, for measured loops: the client process keeps the body and answers only its size
 * (bytes) and the envelope's task status codes, so no CPU of the service's process goes to them.
 */
export async function briefCall(url: string, auth: string, method: 'GET' | 'POST', body?: unknown): Promise<{ status: number; ms: number; bytes: number; taskCodes: number[] }> {
  const answer = await httpClient().send({
    url, method, brief: true,
    headers: { authorization: auth, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  if (answer.error) throw new Error(`${method} ${url} failed: ${answer.error}`);
  return { status: answer.status, ms: answer.ms, bytes: answer.bytes ?? 0, taskCodes: answer.taskCodes ?? [] };
}

/** Options of one autocannon run (see bench/load.ts). */
export interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds of load; or send `amount` requests in all and measure how long they take. */
  duration?: number;
  amount?: number;
  /** Each connection cycles through these requests. */
  requests: { method: 'GET' | 'POST'; path: string; body?: string }[];
  /**
   * Every occurrence of `placeholder` in a body is replaced, in each request sent, by an ASIN
   * never sent before in this run: `prefix` (uppercase letters) and a counter, 10 characters.
   */
  freshAsins?: { placeholder: string; prefix: string };
  headers: Record<string, string>;
  /** Per-request timeout, seconds. */
  timeout?: number;
}

/** What bench/load.ts reports of one autocannon run. */
export interface LoadResult {
  requests: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  mean: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Seconds from the first request to the last answer (`amount` runs), or autocannon's own duration (`duration` runs). */
  durationSec: number;
  /** Status codes of the answers (autocannon's statusCodeStats). */
  statusCodes: Record<string, number>;
  /** CPU time autocannon's process used, ms. */
  cpuMs: number;
  /** Where the machine's CPU went during the run (autocannon counted in `bench`). */
  cpu: CpuShare;
}

/** Runs autocannon in a child process (so the load generator does not share the service's event loop). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const script = fileURLToPath(new URL('./load.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const before = cpuSnapshot();
  child.stdin.end(JSON.stringify(options));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const after = cpuSnapshot();
  if (code !== 0) throw new Error(`autocannon run failed (exit ${code}): ${out}`);
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as Omit<LoadResult, 'cpu'>;
  // autocannon has exited: its CPU time is not in /proc any more, so move it from `other` to `bench`.
  const cpu = cpuShare(before, after);
  const wallCoreMs = (after.at - before.at) * os.cpus().length;
  const loadPct = wallCoreMs > 0 ? (100 * result.cpuMs) / wallCoreMs : 0;
  const moved = Math.min(cpu.other, loadPct);
  return { ...result, cpu: { ...cpu, bench: cpu.bench + moved, other: cpu.other - moved } };
}
