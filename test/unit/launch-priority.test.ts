/**
 * The command that launches the local Chromium at READ_NICE (worker/browser/launch-priority.ts),
 * for the hosts it meets: root in a container (may raise priorities, may drop that right), an
 * ordinary user, a machine without `nice`. browser-grid.test.ts checks the priorities of a real
 * Chromium's threads.
 */
import { expect, it } from 'vitest';
import { launchCommand, launchHost, type LaunchHost } from '../../worker/browser/launch-priority.js';

const CHROME = '/usr/bin/chromium';
const bit = (n: number) => 1n << BigInt(n);
const root: LaunchHost = { nicePath: '/usr/bin/nice', setprivPath: '/usr/bin/setpriv', effectiveCaps: bit(8) | bit(23) | bit(21) };
const user: LaunchHost = { ...root, effectiveCaps: 0n };

it('nice 0 spawns Chromium itself', () => {
  expect(launchCommand(CHROME, 0, root)).toEqual({ executablePath: CHROME, prefix: [] });
});

it('a process that may raise priorities drops that right for Chromium before nice', () => {
  expect(launchCommand(CHROME, 10, root)).toEqual({
    executablePath: '/usr/bin/setpriv',
    prefix: ['--inh-caps=-sys_nice', '--bounding-set=-sys_nice', '/usr/bin/nice', '-n', '10', CHROME],
  });
});

it('an ordinary user (Chromium cannot raise its priority) uses nice alone', () => {
  expect(launchCommand(CHROME, 10, user)).toEqual({ executablePath: '/usr/bin/nice', prefix: ['-n', '10', CHROME] });
  // May raise priorities but cannot drop the right (no CAP_SETPCAP), or no setpriv: nice alone.
  expect(launchCommand(CHROME, 5, { ...root, effectiveCaps: bit(23) })).toEqual({ executablePath: '/usr/bin/nice', prefix: ['-n', '5', CHROME] });
  expect(launchCommand(CHROME, 5, { ...root, setprivPath: undefined })).toEqual({ executablePath: '/usr/bin/nice', prefix: ['-n', '5', CHROME] });
});

it('without nice Chromium is spawned itself', () => {
  expect(launchCommand(CHROME, 10, { ...root, nicePath: undefined })).toEqual({ executablePath: CHROME, prefix: [] });
});

it('reads this machine: nice exists, and the capabilities parse', () => {
  const host = launchHost();
  expect(host.nicePath).toMatch(/\/nice$/);
  expect(typeof host.effectiveCaps).toBe('bigint');
});
