/**
 * In-process news of completed tasks (core/task-completions.ts): a wait ends when its task is
 * told, at once when it was told lately, and leaves nothing behind when its signal aborts.
 * test/integration/live-completions.test.ts uses it with a real Temporal server.
 */
import { expect, it } from 'vitest';
import { TaskCompletions } from '../../core/task-completions.js';

it('a wait ends when its task is told, and only then; every waiter of the task is told', async () => {
  const news = new TaskCompletions();
  const ended: string[] = [];
  const never = new AbortController().signal;
  void news.wait('a', never).then(() => ended.push('a1'));
  void news.wait('a', never).then(() => ended.push('a2'));
  void news.wait('b', never).then(() => ended.push('b'));
  news.completed('c');
  await Promise.resolve();
  expect(ended).toEqual([]);
  news.completed('a');
  await new Promise((resolve) => setImmediate(resolve));
  expect(ended).toEqual(['a1', 'a2']);
  expect(news.pending).toBe(1);
});

it('a task told before the wait starts ends the wait at once; the last 1,000 told are remembered', async () => {
  const news = new TaskCompletions();
  const never = new AbortController().signal;
  news.completed('early');
  await expect(news.wait('early', never)).resolves.toBeUndefined();
  for (let i = 0; i < 1_000; i++) news.completed(`later-${i}`);
  let ended = false;
  void news.wait('early', never).then(() => (ended = true));
  await new Promise((resolve) => setImmediate(resolve));
  expect(ended).toBe(false);
  await expect(news.wait('later-0', never)).resolves.toBeUndefined();
});

it('an aborted wait is dropped: nothing pending, and a later news of its task wakes nobody', async () => {
  const news = new TaskCompletions();
  const stop = new AbortController();
  let ended = false;
  void news.wait('x', stop.signal).then(() => (ended = true));
  expect(news.pending).toBe(1);
  stop.abort();
  expect(news.pending).toBe(0);
  news.completed('x');
  await new Promise((resolve) => setImmediate(resolve));
  expect(ended).toBe(false);
  const already = new AbortController();
  already.abort();
  void news.wait('y', already.signal);
  expect(news.pending).toBe(0);
});
