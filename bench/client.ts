/**
 * The benchmarks' HTTP client in its own process, so the time a request takes is measured outside
 * the service's event loop (the service runs in the benchmark's process). Started by
 * `startClient` in bench/harness.ts; reads one JSON request per stdin line
 * (`{ id, url, method, headers, body }`) and writes one JSON line per answer
 * (`{ id, status, ms, body }`), one request at a time over a keep-alive connection.
 */
import http from 'node:http';
import readline from 'node:readline';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

interface ClientRequest {
  id: number;
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

function send(req: ClientRequest): Promise<{ status: number; ms: number; body: string }> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const r = http.request(req.url, { method: req.method, headers: req.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

const lines = readline.createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const req = JSON.parse(line) as ClientRequest;
  try {
    const res = await send(req);
    process.stdout.write(`${JSON.stringify({ id: req.id, ...res })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: req.id, status: 0, ms: 0, body: '', error: String(error) })}\n`);
  }
}
agent.destroy();
