/**
 * CDP over the pipe of a Chromium this process launched (`--remote-debugging-pipe`): JSON messages,
 * each ended by a NUL byte, on the child's fd 3 (to Chromium) and fd 4 (from it).
 *
 * puppeteer's own PipeTransport joins the chunks of every message into one more Buffer
 * (`Buffer.concat`) before it decodes it. A read's body arrives as one message of ≈ 0.7 MB (the page
 * in base64, page-capture.ts), so each read left a short-lived off-heap copy of that size, and V8
 * starts a full mark-compact of the whole heap of the service's main thread whenever off-heap
 * memory has grown by 64 MB ("external memory pressure"): about once a second while reads were
 * saturated. `CdpPipeTransport` decodes each chunk into the message's text as it arrives (a
 * `StringDecoder` keeps a UTF-8 sequence that a chunk boundary splits whole), and writes a message
 * and its terminator in one write.
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import type { ConnectionTransport } from 'puppeteer-core';

/** Ends every CDP message on the pipe (JSON text never holds a raw NUL). */
const MESSAGE_END = 0;

/**
 * A puppeteer `ConnectionTransport` on Chromium's debugging pipe (pass to `puppeteer.connect({ transport })`).
 * Messages are handed to `onmessage` one per macrotask, in order, as puppeteer's PipeTransport does.
 */
export class CdpPipeTransport implements ConnectionTransport {
  onmessage?: (message: string) => void;
  onclose?: () => void;
  private readonly decoder = new StringDecoder('utf8');
  /** The text of the message under way, before the chunk that ends it. */
  private partial = '';
  private closed = false;

  /**
   * @param toChromium the child's fd 3 (`childProcess.stdio[3]`)
   * @param fromChromium the child's fd 4 (`childProcess.stdio[4]`)
   */
  constructor(
    private readonly toChromium: Writable,
    private readonly fromChromium: Readable,
  ) {
    fromChromium.on('data', this.onData);
    fromChromium.once('close', this.onPipeClose);
    // A write after Chromium died fails with EPIPE; the close that follows tells puppeteer.
    fromChromium.on('error', ignore);
    toChromium.on('error', ignore);
  }

  /** Sends one message. @throws Error once the transport is closed. */
  send(message: string): void {
    if (this.closed) throw new Error('the CDP pipe is closed');
    this.toChromium.write(`${message}\0`);
  }

  /** Stops listening; the pipes close with the process. */
  close(): void {
    this.closed = true;
    this.fromChromium.off('data', this.onData);
    this.fromChromium.off('close', this.onPipeClose);
  }

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    let end = chunk.indexOf(MESSAGE_END);
    while (end !== -1) {
      const message = this.partial + this.decoder.end(chunk.subarray(start, end));
      this.partial = '';
      setImmediate(() => this.onmessage?.(message));
      start = end + 1;
      end = chunk.indexOf(MESSAGE_END, start);
    }
    if (start < chunk.length) this.partial += this.decoder.write(start === 0 ? chunk : chunk.subarray(start));
  };

  private readonly onPipeClose = (): void => {
    this.closed = true;
    this.onclose?.();
  };
}

function ignore(): void {}
