/**
 * CDP framing on Chromium's debugging pipe (worker/browser/cdp-pipe.ts): NUL-ended JSON messages
 * however the pipe cuts them into chunks. browser-grid.test.ts reads through it on a real Chromium.
 */
import { PassThrough } from 'node:stream';
import { setImmediate as macrotask } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { CdpPipeTransport } from '../../worker/browser/cdp-pipe.js';

function pipes() {
  const toChromium = new PassThrough();
  const fromChromium = new PassThrough();
  const transport = new CdpPipeTransport(toChromium, fromChromium);
  const received: string[] = [];
  transport.onmessage = (message) => received.push(message);
  return { toChromium, fromChromium, transport, received };
}

/** Lets every queued 'data' event and message hand-off run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await macrotask();
}

it('hands over each message once its NUL arrives: split over chunks, several in one chunk, a multibyte character cut in two', async () => {
  const { fromChromium, received } = pipes();
  const big = JSON.stringify({ id: 1, result: { body: 'A'.repeat(300_000) } });
  const accented = JSON.stringify({ method: 'Page.frameNavigated', params: { title: 'Küche & Bücher — 東京 😀' } });
  const wire = Buffer.from(`${big}\0${accented}\0{"id":2}\0{"id":3}\0`, 'utf8');
  // Cut inside the big message, inside a multibyte character of the second, and across two whole ones.
  const accentedStart = wire.indexOf('Küche');
  const cuts = [0, 70_000, 200_000, accentedStart + 2, accentedStart + 30, wire.length - 5, wire.length];
  for (let i = 0; i + 1 < cuts.length; i++) fromChromium.write(wire.subarray(cuts[i], cuts[i + 1]));
  await settle();
  expect(received).toEqual([big, accented, '{"id":2}', '{"id":3}']);
});

it('sends a message and its terminator in one write', () => {
  const { toChromium, transport } = pipes();
  const writes: Buffer[] = [];
  toChromium.on('data', (chunk: Buffer) => writes.push(chunk));
  transport.send('{"id":7,"method":"Browser.getVersion"}');
  expect(writes.map(String)).toEqual(['{"id":7,"method":"Browser.getVersion"}\0']);
});

it('tells puppeteer when Chromium closes the pipe, and refuses to send after close()', async () => {
  const { fromChromium, transport } = pipes();
  let closed = 0;
  transport.onclose = () => closed++;
  fromChromium.destroy();
  await settle();
  expect(closed).toBe(1);
  transport.close();
  expect(() => transport.send('{"id":8}')).toThrow(/closed/);
});

it('leaves nothing behind a finished message: the next one starts clean', async () => {
  const { fromChromium, received } = pipes();
  fromChromium.write('{"id":1,"result":{}}\0{"id"');
  await settle();
  expect(received).toEqual(['{"id":1,"result":{}}']);
  fromChromium.write(':2}\0');
  await settle();
  expect(received).toEqual(['{"id":1,"result":{}}', '{"id":2}']);
});
