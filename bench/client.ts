/**
 * The benchmarks' HTTP client in its own process, so the time a request takes is measured outside
 * the service's event loop (the service runs in the benchmark's process). Started by
 * `httpClient` in bench/http.ts; reads one JSON request per stdin line
 * (`{ id, url, method, headers, body, brief }`) and writes one JSON line per answer
 * (`{ id, status, ms, body }`), one request at a time over a keep-alive connection. With `brief`
 * the answer carries, instead of the body, its size in bytes and the envelope's task status codes
 * (`{ id, status, ms, body: '', bytes, taskCodes }`), so the benchmark's process, which is also the
 * service's, does not spend CPU moving and parsing large bodies while the service is measured.
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
  brief?: boolean;
}

/** What `brief` keeps of an answer's body: its size and the envelope's task status codes. */
function briefOf(body: string): { bytes: number; taskCodes: number[] } {
  let taskCodes: number[] = [];
  try {
    const tasks = (JSON.parse(body) as { tasks?: { status_code: number }[] }).tasks;
    taskCodes = (tasks ?? []).map((t) => t.status_code);
  } catch {
    /* not JSON: no codes */
  }
  return { bytes: Buffer.byteLength(body), taskCodes };
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
    const answer = req.brief ? { ...res, body: '', ...briefOf(res.body) } : res;
    process.stdout.write(`${JSON.stringify({ id: req.id, ...answer })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ id: req.id, status: 0, ms: 0, body: '', error: String(error) })}\n`);
  }
}
agent.destroy();
