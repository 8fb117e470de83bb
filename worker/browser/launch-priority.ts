/**
 * The command that launches the local Chromium at a lower CPU priority. Reads are batch work; the
 * API, the database and Temporal answer people and workflows waiting on them, so on a saturated
 * machine the kernel should run those first and give Chromium what is left (READ_NICE).
 *
 * `nice -n <n> chromium …` sets the value for Chromium and everything it starts: a new process or
 * thread inherits it. Chromium itself sets some of its threads' priorities (its display-critical
 * threads to nice −8, its default ones to 0); that works only with CAP_SYS_NICE, which a process
 * running as root (the usual container) has. Then `setpriv` (util-linux) drops that capability from
 * Chromium's bounding and inheritable sets first, so those calls fail and the whole tree stays at
 * `n` or lower priority. Dropping from the bounding set needs CAP_SETPCAP.
 */
import fs from 'node:fs';

/** Capability numbers (linux/capability.h). */
const CAP_SETPCAP = 8;
const CAP_SYS_NICE = 23;

/** What puppeteer spawns: `executablePath` with `prefix` before Chromium's own arguments. */
export interface LaunchCommand {
  executablePath: string;
  /** Arguments up to and including Chromium's path; empty when Chromium is spawned directly. */
  prefix: string[];
}

/** Tools the command uses, and this process's effective capabilities (bit n = capability n). */
export interface LaunchHost {
  nicePath: string | undefined;
  setprivPath: string | undefined;
  effectiveCaps: bigint;
}

const firstExisting = (paths: string[]): string | undefined => paths.find((p) => fs.existsSync(p));

/** This machine's `nice`, `setpriv` and effective capabilities (/proc/self/status `CapEff`; 0 off Linux). */
export function launchHost(): LaunchHost {
  let effectiveCaps = 0n;
  try {
    const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (hex) effectiveCaps = BigInt(`0x${hex}`);
  } catch {
    // No /proc: no capabilities to drop.
  }
  return {
    nicePath: firstExisting(['/usr/bin/nice', '/bin/nice']),
    setprivPath: firstExisting(['/usr/bin/setpriv', '/bin/setpriv']),
    effectiveCaps,
  };
}

/**
 * How to launch `chromePath` at nice value `nice` (0–19) on `host`: directly for 0 or when `nice`
 * is missing; through `setpriv` when this process may raise priorities (CAP_SYS_NICE) and can drop
 * that right (CAP_SETPCAP, setpriv present); otherwise through `nice` alone, which then suffices.
 */
export function launchCommand(chromePath: string, nice: number, host: LaunchHost = launchHost()): LaunchCommand {
  if (nice <= 0 || !host.nicePath) return { executablePath: chromePath, prefix: [] };
  const niced = [host.nicePath, '-n', String(nice), chromePath];
  const has = (cap: number) => ((host.effectiveCaps >> BigInt(cap)) & 1n) === 1n;
  if (has(CAP_SYS_NICE) && has(CAP_SETPCAP) && host.setprivPath) {
    return { executablePath: host.setprivPath, prefix: ['--inh-caps=-sys_nice', '--bounding-set=-sys_nice', ...niced] };
  }
  return { executablePath: host.nicePath, prefix: niced.slice(1) };
}
