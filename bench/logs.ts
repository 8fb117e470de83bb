/**
 * The service's own log lines, captured in memory while a benchmark runs: the worker logs each
 * read's timings (`loadMs`, `waitMs`, `parseMs`, `storeMs`), which the benchmarks report.
 */
/** One log line the service wrote (pino JSON). */
export type LogLine = Record<string, unknown> & { level: number; msg?: string; time: number };

/** One stored read as the worker logged it: its key (`marketplace:ASIN`) and its timings, ms. */
export interface LoggedRead {
  key: string;
  time: number;
  /** The browser grid's page load (slot acquired → bytes taken). */
  loadMs: number;
  /** Waiting for a page slot (the activity's fetch time minus loadMs). */
  waitMs: number;
  /** Decoding and parsing the page. */
  parseMs: number;
  /** Storing the observation, recording the read and completing the task. */
  storeMs: number;
}

/** Keeps the service's log lines in memory; warnings and errors are also echoed (first 20). */
export class LogCapture {
  readonly lines: LogLine[] = [];
  private echoed = 0;

  write(chunk: string): void {
    for (const text of chunk.split('\n')) {
      if (!text) continue;
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        continue;
      }
      if (line.component === 'temporal-sdk' && line.level < 40) continue;
      this.lines.push(line);
      if (line.level >= 40 && this.echoed < 20) {
        this.echoed++;
        process.stderr.write(`  [service ${line.level >= 50 ? 'error' : 'warn'}] ${String(line.msg)} ${line.err ? JSON.stringify((line.err as { message?: string }).message) : ''}\n`);
      }
    }
  }

  /**
   * Forgets the lines kept so far (indices given to `reads` restart at 0). A long run that reports
   * no read timings calls it, so the lines it would never read do not grow the process it measures.
   */
  discard(): void {
    this.lines.length = 0;
  }

  /** `loadMs` of every read the worker logged since index `from`, by `<marketplace>:<asin>`. */
  reads(from = 0): LoggedRead[] {
    const num = (v: unknown) => (typeof v === 'number' ? v : NaN);
    return this.lines.slice(from).flatMap((l) =>
      typeof l.loadMs === 'number' && (l.msg === 'observation stored' || l.msg === 'product not found')
        ? [{ key: `${String(l.marketplace)}:${String(l.asin)}`, loadMs: l.loadMs, time: l.time, waitMs: num(l.waitMs), parseMs: num(l.parseMs), storeMs: num(l.storeMs) }]
        : [],
    );
  }
}
