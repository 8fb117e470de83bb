/**
 * What every benchmark prints with its figures: the machine (cores, CPU model, memory, Node
 * version) and the database kind, plus the small statistics and result-record helpers the parts share.
 */
import fs from 'node:fs';
import os from 'node:os';

/** The two databases every part runs on. */
export type DbKind = 'pglite' | 'postgres';
export const DB_KINDS: readonly DbKind[] = ['pglite', 'postgres'];
export const DB_LABEL: Record<DbKind, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

/** One line of the machine description. */
export function machineDescription(): string {
  const cpus = os.cpus();
  const model = (cpus[0]?.model ?? 'unknown CPU').replace(/\s+/g, ' ').trim();
  const memGiB = (os.totalmem() / 2 ** 30).toFixed(1);
  return `${cpus.length} cores (${os.availableParallelism()} usable), ${model}, ${memGiB} GiB RAM, Node ${process.version}, ${os.type()} ${os.release()} ${os.arch()}`;
}

/** Prints the header every part starts with. */
export function printHeader(title: string, database?: string): void {
  console.log(`\n=== ${title}${database ? ` on ${database}` : ''} ===`);
  console.log(`machine:  ${machineDescription()}`);
  if (database) console.log(`database: ${database}`);
}

/** The `q` quantile (0..1) of `xs`, nearest-rank. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

export const p50 = (xs: readonly number[]): number => quantile(xs, 0.5);
export const p95 = (xs: readonly number[]): number => quantile(xs, 0.95);
export const p99 = (xs: readonly number[]): number => quantile(xs, 0.99);

/** Formats a number with `digits` decimals (an integer when large). */
export function fmt(value: number, digits = 1): string {
  if (!Number.isFinite(value)) return 'n/a';
  return Math.abs(value) >= 1000 ? Math.round(value).toLocaleString('en-US') : value.toFixed(digits);
}

/** A target beside a figure: `value <= limit` or `value >= limit`. */
export interface Target {
  op: '<=' | '>=';
  limit: number;
  /** Only this database is held to it (e.g. task_get on PostgreSQL); both when unset. */
  db?: DbKind;
}

/** One measured figure, as the parts report it to `bench/index.ts`. */
export interface BenchResult {
  part: string;
  db: DbKind | 'none';
  /** Stable name such as `task_get req/s`. */
  metric: string;
  value: number;
  unit: string;
  target?: Target;
  note?: string;
  /** CPU share (% of the whole machine) that processes outside this benchmark used while it was measured. */
  otherCpu?: number;
}

/** PASS / MISS of `value` against `target`, or '' when it has none (for this database). */
export function verdict(value: number, target: Target | undefined, db: DbKind | 'none'): string {
  if (!target || (target.db && target.db !== db)) return '';
  const ok = target.op === '<=' ? value <= target.limit : value >= target.limit;
  return ok ? 'PASS' : 'MISS';
}

/** Text of a target, e.g. `≤ 15 ms`. */
export function targetText(target: Target | undefined, unit: string): string {
  if (!target) return '';
  return `${target.op === '<=' ? '≤' : '≥'} ${fmt(target.limit, Number.isInteger(target.limit) ? 0 : 2)} ${unit}${target.db ? ` (${DB_LABEL[target.db]})` : ''}`;
}

/** Collects a part's results; prints each with its verdict and appends it to BENCH_RESULT_FILE when set. */
export class Results {
  readonly rows: BenchResult[] = [];

  constructor(private readonly part: string, private readonly db: DbKind | 'none') {}

  add(metric: string, value: number, unit: string, extra: { target?: Target; note?: string; digits?: number; cpu?: CpuShare } = {}): void {
    const row: BenchResult = {
      part: this.part, db: this.db, metric, value, unit,
      ...(extra.target && { target: extra.target }), ...(extra.note && { note: extra.note }),
      ...(extra.cpu && { otherCpu: Math.round(extra.cpu.other) }),
    };
    this.rows.push(row);
    const v = verdict(value, extra.target, this.db);
    const target = extra.target && v ? `  target ${targetText(extra.target, unit)}  ${v}` : '';
    console.log(`  ${metric.padEnd(44)} ${fmt(value, extra.digits ?? 1).padStart(10)} ${unit.padEnd(10)}${target}${extra.note ? `  (${extra.note})` : ''}`);
    const file = process.env.BENCH_RESULT_FILE;
    if (file) fs.appendFileSync(file, `${JSON.stringify(row)}\n`);
  }
}

/** The database kinds asked for on the command line (`--db pglite|postgres|both`), default both. */
export function dbKindsFromArgs(argv: readonly string[] = process.argv.slice(2)): DbKind[] {
  const i = argv.findIndex((a) => a === '--db' || a.startsWith('--db='));
  if (i < 0) return [...DB_KINDS];
  const value = argv[i]!.includes('=') ? argv[i]!.split('=')[1]! : argv[i + 1] ?? '';
  if (value === 'both' || value === '') return [...DB_KINDS];
  const kinds = value.split(',').map((v) => v.trim());
  for (const k of kinds) if (!DB_KINDS.includes(k as DbKind)) throw new Error(`--db: unknown database "${k}" (pglite, postgres, both)`);
  return kinds as DbKind[];
}

/** Reads an integer setting from the environment (to shorten a run), with its default. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number`);
  return Math.round(n);
}

/** CPU time of one process, from /proc. */
interface ProcTicks {
  ppid: number;
  comm: string;
  ticks: number;
  /** CPU of its ended children that it waited for (cutime + cstime), ticks. */
  childTicks: number;
  /** Chromium's processes only: the process type of its command line (`browser`, `renderer`, `gpu-process`, `utility: network`, `zygote`, …). */
  chromiumType?: string;
}

/** A Chromium process's type from its command line: `--type=`, the utility's `--utility-sub-type=`; none → `browser`. */
function chromiumTypeOf(pid: string): string | undefined {
  try {
    // Chromium rewrites its children's command lines into one space-separated string.
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/\0|\s+(?=--)/);
    const value = (flag: string) => args.find((a) => a.startsWith(flag))?.slice(flag.length);
    const type = value('--type=');
    if (!type) return 'browser';
    const sub = value('--utility-sub-type=');
    return sub ? `${type}: ${sub.replace(/\.mojom\./, '.').split('.').at(-1)}` : type;
  } catch {
    return undefined;
  }
}

/** A moment's CPU counters: the machine's busy/total ticks and every process's ticks. */
export interface CpuSnapshot {
  at: number;
  busy: number;
  total: number;
  procs: Map<number, ProcTicks>;
}

/** Where the machine's CPU went between two snapshots, in % of the whole machine (all cores). */
export interface CpuShare {
  /** Everything busy. */
  machine: number;
  /** This benchmark's process tree: the service (API, worker, PGlite), autocannon, Temporal dev server, Chromium. */
  bench: number;
  /** PostgreSQL server processes (every database on the server). */
  postgres: number;
  /** Everything else: other users of the machine; figures measured while this is high are pessimistic. */
  other: number;
}

/** Reads /proc (Linux); empty counters elsewhere. */
export function cpuSnapshot(): CpuSnapshot {
  const snap: CpuSnapshot = { at: performance.now(), busy: 0, total: 0, procs: new Map() };
  try {
    const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
    snap.total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
    snap.busy = snap.total - idle;
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        const close = stat.lastIndexOf(')');
        const comm = stat.slice(stat.indexOf('(') + 1, close);
        const fields = stat.slice(close + 2).split(' ');
        // fields[0] is state (field 3); utime, stime are fields 14, 15 → indexes 11, 12.
        // cutime, cstime (fields 16, 17 → indexes 13, 14): children that ended and were waited for.
        const chromiumType = /^chrom/i.test(comm) ? chromiumTypeOf(entry) : undefined;
        snap.procs.set(Number(entry), {
          ppid: Number(fields[1]), comm, ticks: Number(fields[11]) + Number(fields[12]), childTicks: Number(fields[13]) + Number(fields[14]),
          ...(chromiumType !== undefined && { chromiumType }),
        });
      } catch {
        /* the process ended meanwhile */
      }
    }
  } catch {
    /* not Linux */
  }
  return snap;
}

/** Splits the CPU used between `a` and `b` into this benchmark's tree (rooted at `root`), PostgreSQL and the rest. */
export function cpuShare(a: CpuSnapshot, b: CpuSnapshot, root = process.pid): CpuShare {
  const total = b.total - a.total;
  if (total <= 0) return { machine: 0, bench: 0, postgres: 0, other: 0 };
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 50; hops++) {
      if (p === root) return true;
      p = b.procs.get(p)?.ppid ?? a.procs.get(p)?.ppid ?? 0;
    }
    return false;
  };
  let bench = 0;
  let postgres = 0;
  for (const [pid, now] of b.procs) {
    const delta = now.ticks - (a.procs.get(pid)?.ticks ?? 0);
    if (delta <= 0) continue;
    if (inTree(pid)) bench += delta;
    else if (now.comm === 'postgres') postgres += delta;
  }
  const busy = b.busy - a.busy;
  const pct = (t: number): number => (100 * t) / total;
  return { machine: pct(busy), bench: pct(bench), postgres: pct(postgres), other: Math.max(0, pct(busy - bench - postgres)) };
}

/** Kernel clock ticks per second of /proc's CPU counters (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/**
 * CPU time (ms) the process tree rooted at `root` used between `a` and `b`, from /proc: every
 * process of the tree alive at `b` (its own time plus that of its children that ended and were
 * waited for, such as Chromium's renderers reaped by its zygote), minus the same at `a` for the
 * processes of the tree then. Trees rooted at `exclude` are left out (e.g. a replay server started
 * by the benchmark). A process that ended without being waited for by one of the tree's is lost.
 */
export function treeCpuMs(a: CpuSnapshot, b: CpuSnapshot, root: number, exclude: readonly number[] = []): number {
  const inTree = (snap: CpuSnapshot, pid: number): boolean => {
    for (let p = pid, hops = 0; p > 0 && hops < 50; hops++) {
      if (exclude.includes(p)) return false;
      if (p === root) return true;
      p = snap.procs.get(p)?.ppid ?? 0;
    }
    return false;
  };
  const sum = (snap: CpuSnapshot): number => {
    let ticks = 0;
    for (const [pid, t] of snap.procs) if (inTree(snap, pid)) ticks += t.ticks + t.childTicks;
    return ticks;
  };
  return ((sum(b) - sum(a)) * 1000) / USER_HZ;
}

/** CPU time (ms) of process `pid` alone (its own threads, not its children) between `a` and `b`, from /proc. */
export function ownCpuMs(a: CpuSnapshot, b: CpuSnapshot, pid: number): number {
  return (((b.procs.get(pid)?.ticks ?? 0) - (a.procs.get(pid)?.ticks ?? 0)) * 1000) / USER_HZ;
}

/**
 * Like {@link cpuShare}, with this benchmark's share taken by {@link treeCpuMs}: processes of the
 * tree that ended meanwhile (a reader process, Chromium's renderers) still count as this benchmark's.
 */
export function cpuShareOfTree(a: CpuSnapshot, b: CpuSnapshot, root = process.pid): CpuShare {
  const share = cpuShare(a, b, root);
  const total = b.total - a.total;
  if (total <= 0) return share;
  // /proc/stat counts every core's ticks; treeCpuMs counts USER_HZ ticks of CPU time.
  const bench = Math.min(share.machine - share.postgres, (100 * (treeCpuMs(a, b, root) * USER_HZ) / 1000) / total);
  return { ...share, bench, other: Math.max(0, share.machine - bench - share.postgres) };
}

/**
 * {@link treeCpuMs} of `root` split by process: `root` itself, then each of its direct children
 * with its own descendants (labelled by command name: `chromium`, `temporal`, `node`, …), ms.
 */
export function treeCpuByChild(a: CpuSnapshot, b: CpuSnapshot, root: number, exclude: readonly number[] = []): Map<string, number> {
  const out = new Map<string, number>();
  out.set('service process', ownCpuMs(a, b, root));
  const children = new Set<number>();
  for (const snap of [a, b]) for (const [pid, t] of snap.procs) if (t.ppid === root && !exclude.includes(pid)) children.add(pid);
  for (const pid of children) {
    const label = (b.procs.get(pid) ?? a.procs.get(pid))!.comm;
    out.set(label, (out.get(label) ?? 0) + treeCpuMs(a, b, pid));
  }
  return out;
}

/**
 * CPU time (ms) of the Chromium processes under `root` between `a` and `b`, by process type (see
 * `ProcTicks.chromiumType`); processes that ended meanwhile count under `ended (reaped)` through
 * their parent's waited-for children.
 */
export function chromiumCpuByType(a: CpuSnapshot, b: CpuSnapshot, root: number): Map<string, number> {
  const out = new Map<string, number>();
  const under = (snap: CpuSnapshot, pid: number): boolean => {
    for (let p = snap.procs.get(pid)?.ppid ?? 0, hops = 0; p > 0 && hops < 50; hops++) {
      if (p === root) return true;
      p = snap.procs.get(p)?.ppid ?? 0;
    }
    return false;
  };
  const add = (label: string, ticks: number) => out.set(label, (out.get(label) ?? 0) + (ticks * 1000) / USER_HZ);
  for (const [pid, now] of b.procs) {
    if (now.chromiumType === undefined || !under(b, pid)) continue;
    const before = a.procs.get(pid);
    add(now.chromiumType, now.ticks - (before?.ticks ?? 0));
    const reaped = now.childTicks - (before?.childTicks ?? 0);
    if (reaped > 0) add('ended (reaped)', reaped);
  }
  return out;
}

/** CPU time (ms) of PostgreSQL server processes (every database on the server) between `a` and `b`. */
export function postgresCpuMs(a: CpuSnapshot, b: CpuSnapshot): number {
  let ticks = 0;
  for (const [pid, now] of b.procs) {
    if (now.comm !== 'postgres') continue;
    ticks += Math.max(0, now.ticks - (a.procs.get(pid)?.ticks ?? 0));
  }
  return (ticks * 1000) / USER_HZ;
}

/** `cpu: machine 98%, bench 80%, postgres 12%, other 6%`. */
export function cpuText(share: CpuShare): string {
  return `CPU of the machine: ${share.machine.toFixed(0)}% busy = this bench ${share.bench.toFixed(0)}% + PostgreSQL ${share.postgres.toFixed(0)}% + other processes ${share.other.toFixed(0)}%`;
}

/**
 * Waits (up to BENCH_QUIET_WAIT seconds, default 10) until processes outside this benchmark use
 * less than BENCH_QUIET_OTHER percent of the machine (default 15) over one second, so a figure is
 * not taken while someone else's build or test run holds the CPU. Returns the last one-second share.
 */
export async function awaitQuiet(label: string): Promise<CpuShare> {
  const maxWait = Number(process.env.BENCH_QUIET_WAIT ?? 10);
  const threshold = Number(process.env.BENCH_QUIET_OTHER ?? 15);
  const started = performance.now();
  let share: CpuShare;
  for (;;) {
    const a = cpuSnapshot();
    await new Promise((r) => setTimeout(r, 1000));
    share = cpuShare(a, cpuSnapshot());
    // PostgreSQL is idle between this benchmark's phases: its CPU now is someone else's.
    const others = share.other + share.postgres;
    const waited = (performance.now() - started) / 1000;
    if (others < threshold) {
      if (waited > 1.5) console.log(`  (${label}: waited ${waited.toFixed(0)} s for other processes to drop below ${threshold}% CPU)`);
      return share;
    }
    if (waited >= maxWait) {
      console.log(`  (${label}: other processes still use ${others.toFixed(0)}% of the CPU after ${waited.toFixed(0)} s; measuring anyway)`);
      return share;
    }
  }
}

/** CPU time this process has used, ms (the service runs in it: API, worker, PGlite). */
export function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
