/**
 * CPU priority of the local Chromium. Reads are batch work; the API, the database and Temporal
 * answer people and workflows waiting on them. On a saturated machine the kernel should run those
 * first and give Chromium what is left, so a launched Chromium's process tree gets a higher nice
 * value (lower priority) once it is up.
 *
 * Linux keeps a nice value per thread (setpriority(2) with a thread id, "NOTES": NPTL threads), and a
 * new thread or process inherits it from the thread that creates it. So every thread of every
 * process already in the tree is reniced; the renderers and utility processes Chromium starts later
 * are forked by those threads and inherit the value. Raising a nice value needs no privilege.
 */
import fs from 'node:fs';
import os from 'node:os';

/** Pids of `root` and all its descendants now, from /proc (empty off Linux or once `root` is gone). */
export function processTree(root: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while the table was read.
    }
  }
  const tree: number[] = [];
  const walk = [root];
  while (walk.length) {
    const pid = walk.pop()!;
    if (pid !== root || fs.existsSync(`/proc/${pid}`)) tree.push(pid);
    walk.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/**
 * Sets the nice value of every thread of `root` and its descendants to `nice` (0–19); a thread
 * whose value is already higher keeps it. Threads that end meanwhile are skipped.
 * @returns how many threads now run at `nice` or lower priority
 */
export function lowerTreePriority(root: number, nice: number): number {
  let lowered = 0;
  for (const pid of processTree(root)) {
    let threads: string[];
    try {
      threads = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of threads.map(Number)) {
      try {
        if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
        lowered++;
      } catch {
        // The thread ended between the listing and the call.
      }
    }
  }
  return lowered;
}
