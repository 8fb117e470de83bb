/**
 * What the monitoring tests over a whole stack (`startStack`) share: an account with its API
 * client, adding subscriptions (each must be accepted), the observations delivered to a
 * subscription, and the replay server's path of a product page.
 */
import { expect } from 'vitest';
import { createAccount } from '../../api/admin/accounts.js';
import type { Stack } from '../../scripts/stack.js';
import { apiClient, type ApiClient } from './http.js';

/** Replay-server path of the product page of `asin` on `www.amazon.<domain>`. */
export const pagePath = (domain: string, asin: string) => `/www.amazon.${domain}/dp/${asin}`;

/** Helpers bound to the stack that `stack()` returns once the test file's beforeAll has started it. */
export function monitoringHelpers(stack: () => Stack) {
  const db = () => stack().db;
  const prisma = () => db().prisma;
  return {
    db,
    prisma,
    /** Observations stored for the subscription (each one delivered and paid for). */
    deliveries: (subscriptionId: number) => prisma().observation.count({ where: { subscriptionId } }),
    /** A new account with `balance` USD and an API client authenticated as it. */
    async account(login: string, balance: number): Promise<{ id: number; api: ApiClient }> {
      const created = await createAccount(db(), { login, email: `${login}@example.com`, balance });
      return { id: created.id, api: apiClient(stack().api.url, { login, key: created.api_key }) };
    },
    /** monitoring/add; every element must be accepted (20000). Returns each subscription. */
    async add(api: ApiClient, elements: Record<string, unknown>[]): Promise<any[]> {
      const res = await api.post('/v1/retail/monitoring/add', elements);
      expect(res.status).toBe(200);
      expect(res.body.tasks.map((t: any) => t.status_code)).toEqual(elements.map(() => 20000));
      return res.body.tasks.map((t: any) => t.result[0]);
    },
  };
}
