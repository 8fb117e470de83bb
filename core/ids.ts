/**
 * Task ids: UUIDs whose first 8 characters are the UTC MMDDHHmm of creation (api-spec.md "Task").
 */
import { randomUUID } from 'node:crypto';

/** Creates a task id for `now`; the rest of the UUID (version 4) stays random. */
export function newTaskId(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}`;
  return stamp + randomUUID().slice(8);
}

/** True when `id` has the shape of a UUID (any version); used before querying the uuid column. */
export function isUuid(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);
}
