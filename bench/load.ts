/**
 * One autocannon run in its own process (the load generator must not share the service's event
 * loop). Reads {@link LoadOptions} as JSON on stdin and prints one JSON {@link LoadResult} line.
 * Started by `runLoad` in bench/http.ts.
 */
import autocannon from 'autocannon';
import type { LoadOptions, LoadResult } from './http.js';

let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk as string;
const options = JSON.parse(input) as LoadOptions;

/** The next never-sent ASIN of `freshAsins` (bench/http.ts LoadOptions). */
let sent = 0;
const fresh = options.freshAsins;
const nextAsin = (prefix: string): string => `${prefix}${String(sent++).padStart(10 - prefix.length, '0')}`;

const startedAt = performance.now();
let lastAnswerAt = startedAt;
const result = await new Promise<autocannon.Result>((resolve, reject) => {
  const run = autocannon({
    url: options.url,
    connections: options.connections,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.duration ?? 10 }),
    timeout: options.timeout ?? 30,
    headers: options.headers,
    requests: options.requests.map((r) => ({
      method: r.method, path: r.path, ...(r.body !== undefined && { body: r.body }),
      ...(fresh && r.body?.includes(fresh.placeholder) && {
        setupRequest: (req: { body?: string | Buffer }) => ({ ...req, body: r.body!.replaceAll(fresh.placeholder, () => nextAsin(fresh.prefix)) }),
      }),
    })),
  }, (error: unknown, done) => (error ? reject(error) : resolve(done)));
  run.on('response', () => { lastAnswerAt = performance.now(); });
});
// With `amount`, autocannon reports the run only at its next one-second tick after the last
// answer, so its own duration is rounded up to whole seconds (2,000 tasks in 3.2 s would read as
// 4.0 s): the time to the last answer is the run's duration.
const durationSec = options.amount !== undefined ? (lastAnswerAt - startedAt) / 1000 : result.duration;

const statusCodes: Record<string, number> = {};
for (const [code, stats] of Object.entries((result as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {})) {
  statusCodes[code] = stats.count;
}
const out: Omit<LoadResult, 'cpu'> = {
  requests: result.requests.total,
  reqPerSec: result.requests.total / durationSec,
  p50: result.latency.p50,
  p99: result.latency.p99,
  mean: result.latency.average,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  durationSec,
  statusCodes,
  cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000,
};
process.stdout.write(`${JSON.stringify(out)}\n`);
