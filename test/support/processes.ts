/**
 * Real child processes for multi-process tests: a Node entry point of the project run the way
 * production runs it (its own process, configured only through environment variables), its
 * stdout and stderr appended to a log file, readiness read from its pino JSON log lines, and
 * signals sent to its whole process group.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './env.js';

/** One line of a child's output: its pino JSON object, or `{ msg: <text> }` for other lines. */
export type LogLine = Record<string, unknown> & { msg?: string };

/** How a child process ended. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running (or ended) child process started by {@link spawnNodeEntry}. */
export interface ServiceProcess {
  readonly name: string;
  /** Process id of the Node process (also its process-group id). */
  readonly pid: number;
  /** File receiving the child's stdout and stderr. */
  readonly logFile: string;
  /** Resolves once the process has exited. */
  readonly exited: Promise<ProcessExit>;
  /** True once the process has exited. */
  hasExited(): boolean;
  /** Every output line written so far, parsed (pino JSON where possible). */
  logLines(): LogLine[];
  /** The last `lines` lines of output as text, for failure messages. */
  tail(lines?: number): string;
  /**
   * Waits until an output line satisfies `match`.
   * @throws Error (with the output's tail) when the process exits first or `timeoutMs` passes.
   */
  waitForLog(match: (line: LogLine) => boolean, timeoutMs: number): Promise<LogLine>;
  /** Sends `signal` to the child's whole process group (no-op once it has exited). */
  signalGroup(signal: NodeJS.Signals): void;
  /**
   * Graceful stop: SIGTERM to the process group, then SIGKILL after `graceMs` if still running.
   * @returns the exit, and whether it came within the grace period.
   */
  stop(graceMs: number): Promise<ProcessExit & { graceful: boolean }>;
}

/**
 * Process groups still running. They are killed if the test process exits without stopping them,
 * or is itself interrupted (SIGINT/SIGTERM: then the signal is passed on to this process again).
 */
const running = new Set<number>();
const killAll = () => {
  for (const pid of running) killGroup(pid, 'SIGKILL');
};
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  const onSignal = () => {
    killAll();
    process.off(signal, onSignal);
    process.kill(process.pid, signal);
  };
  process.on(signal, onSignal);
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* already gone */
  }
}

function parseLines(text: string): LogLine[] {
  return text.split('\n').filter((line) => line.trim() !== '').map((line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as LogLine;
    } catch {
      /* plain text */
    }
    return { msg: line };
  });
}

/**
 * Starts `node --import tsx <entry>` in the repository root as its own process group, with exactly
 * `env` (plus PATH and HOME) as its environment, so nothing of the test process's environment
 * leaks into the child's configuration.
 * @param options.entry repository-relative path of the entry point, e.g. `worker/main.ts`.
 * @param options.logFile created (with its folder) and appended to.
 */
export function spawnNodeEntry(options: { name: string; entry: string; env: Record<string, string>; logFile: string }): ServiceProcess {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const fd = fs.openSync(options.logFile, 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', options.entry], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...options.env },
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  fs.closeSync(fd);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${options.name}: could not spawn ${options.entry}`);
  running.add(pid);
  let ended: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = { code, signal };
      running.delete(pid);
      resolve(ended);
    });
  });
  const read = () => fs.readFileSync(options.logFile, 'utf8');
  const self: ServiceProcess = {
    name: options.name,
    pid,
    logFile: options.logFile,
    exited,
    hasExited: () => ended !== undefined,
    logLines: () => parseLines(read()),
    tail(lines = 30) {
      return read().split('\n').slice(-lines - 1).join('\n');
    },
    async waitForLog(match, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = self.logLines().find(match);
        if (found) return found;
        if (ended) throw new Error(`${options.name} exited (${JSON.stringify(ended)}) before the awaited log line; its output:\n${self.tail()}`);
        if (Date.now() > deadline) throw new Error(`${options.name}: awaited log line not seen within ${timeoutMs} ms; its output:\n${self.tail()}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    signalGroup(signal) {
      if (!ended) killGroup(pid, signal);
    },
    async stop(graceMs) {
      if (ended) return { ...ended, graceful: true };
      killGroup(pid, 'SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const graceful = await Promise.race([
        exited.then(() => true),
        new Promise<false>((resolve) => { timer = setTimeout(() => resolve(false), graceMs); }),
      ]);
      clearTimeout(timer);
      if (!graceful) killGroup(pid, 'SIGKILL');
      return { ...(await exited), graceful };
    },
  };
  return self;
}

/** True while a process with this id exists and is not a zombie (Linux: `/proc/<pid>/stat`). */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 3, after the parenthesised command name, is the state; Z = exited, not yet reaped.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Direct children of `pid` whose command line matches `command` (Linux: scans `/proc`).
 * @returns their process ids; children that exit during the scan are left out.
 */
export function childPids(pid: number, command: RegExp): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4, after the parenthesised command name and the state, is the parent's pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && command.test(fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '))) out.push(Number(entry));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** The nice value of each thread of process `pid` (Linux /proc). */
export function threadNices(pid: number): number[] {
  const nices: number[] = [];
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      // /proc/<pid>/task/<tid>/stat: field 19 is the nice value; fields counted after "(comm)".
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      nices.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return nices;
}
