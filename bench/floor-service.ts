/**
 * One measured run of the service for bench/floor-compare.ts: tasks posted with task_post of the
 * product or the search API in 100-task bodies (the first saturates the worker, the others follow
 * one a second, each timed as a task_post made during a saturated run) and collected through that
 * API's tasks_ready, with the CPU the service used meanwhile (its process tree, the replay server
 * left out; the PostgreSQL server's processes on PostgreSQL).
 */
import { call } from './http.js';
import { chromiumCpuByType, cpuShareOfTree, cpuSnapshot, postgresCpuMs, treeCpuByChild, treeCpuMs, type CpuShare } from './machine.js';
import { withCpuProfile } from './profile.js';
import type { BenchStack } from './stack.js';
import { sleep } from './stack.js';

/** What one run measured. */
export interface ServiceRun {
  /** Tasks posted. */
  posted: number;
  /** Tasks seen in tasks_ready before the run stopped. */
  collected: number;
  /** Of the posted tasks, those whose status code is not 20000 (still open ones included). */
  failed: number;
  /** From the first post to the last task seen in tasks_ready, ms. */
  wallMs: number;
  /** CPU time of the service meanwhile, ms (process tree + PostgreSQL server on PostgreSQL). */
  cpuMs: number;
  share: CpuShare;
  /** CPU ms of the service's tree by process (the bench process itself, chromium, temporal, ...). */
  byProcess: [string, number][];
  /** CPU ms of the service's Chromium by process type. */
  byChromiumType: [string, number][];
  /** PostgreSQL server CPU ms (0 on PGlite). */
  postgresMs: number;
  /** task_post times of the bodies after the first, ms. */
  postMs: number[];
}

/**
 * Posts `elements` to `/v1/retail/<api>/task_post` and collects them through `<api>/tasks_ready`
 * (at most 1,000 tasks: tasks_ready answers at most that many); stops after `maxMs` even with tasks
 * still open. `profile` names the CPU profile written when BENCH_CPU_PROFILE is set.
 * @throws Error when a task_post is refused or one of its tasks is not created
 */
export async function measureServiceRun(
  bench: BenchStack,
  basic: string,
  opts: { api: 'product' | 'search'; elements: readonly Record<string, unknown>[]; maxMs: number; replayPid: number; profile: string },
): Promise<ServiceRun> {
  const url = (path: string) => `${bench.url}/v1/retail/${opts.api}/${path}`;
  const cpu0 = cpuSnapshot();
  const t0 = performance.now();
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  const postMs: number[] = [];
  let postedAll = false;
  await withCpuProfile(opts.profile, async () => {
    const post = async (from: number) => {
      const r = await call(url('task_post'), basic, 'POST', opts.elements.slice(from, from + 100));
      if (r.status !== 200 || r.body.tasks_error !== 0) throw new Error(`${opts.api} task_post failed: ${JSON.stringify(r.body).slice(0, 300)}`);
      for (const t of r.body.tasks as { id: string }[]) ids.add(t.id);
      return r.ms;
    };
    await post(0);
    const posting = (async () => {
      for (let i = 100; i < opts.elements.length; i += 100) {
        await sleep(1000);
        postMs.push(await post(i));
      }
      postedAll = true;
    })();
    while (!postedAll || seen.size < ids.size) {
      if (performance.now() - t0 > opts.maxMs) break;
      await sleep(500);
      const r = await call(url('tasks_ready'), basic, 'GET');
      const now = performance.now();
      // One task whose result lists the finished, uncollected tasks (api/rest/envelope/tasks-ready.ts).
      const ready = (r.body.tasks?.[0]?.result ?? []) as { id: string }[];
      for (const t of ready) if (ids.has(t.id) && !seen.has(t.id)) seen.set(t.id, now);
    }
    await posting;
  });
  const cpu1 = cpuSnapshot();
  const postgresMs = bench.kind === 'postgres' ? postgresCpuMs(cpu0, cpu1) : 0;
  const failed = await bench.db.prisma.task.count({ where: { id: { in: [...ids] }, statusCode: { not: 20000 } } });
  return {
    posted: ids.size, collected: seen.size, failed,
    wallMs: seen.size ? Math.max(...seen.values()) - t0 : performance.now() - t0,
    cpuMs: treeCpuMs(cpu0, cpu1, process.pid, [opts.replayPid]) + postgresMs,
    share: cpuShareOfTree(cpu0, cpu1),
    byProcess: [...treeCpuByChild(cpu0, cpu1, process.pid, [opts.replayPid])].filter(([, ms]) => ms > 0).sort((x, y) => y[1] - x[1]),
    byChromiumType: [...chromiumCpuByType(cpu0, cpu1, process.pid)].filter(([, ms]) => ms > 0).sort((x, y) => y[1] - x[1]),
    postgresMs, postMs,
  };
}
