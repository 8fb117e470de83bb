/**
 * Pages of the observations delivered to subscriptions (Subscription.observations), newest first,
 * for a whole page of subscriptions at once: one LATERAL query picks at most `limit` ids per
 * subscription through the (subscription_id, observed_at) index, one Prisma query reads those
 * rows. Two SQL queries per nested connection whatever the number of subscriptions, and never
 * more rows than asked for (Prisma's nested `take` would read every delivery and slice in memory).
 */
import DataLoader from 'dataloader';
import type { Db } from '../../core/db/db.js';
import { DomainError } from '../../core/errors.js';
import { observationsById, type StoredObservation } from '../../core/observations.js';

/** A delivered observation as the connection pages it. */
export type ObservationRow = StoredObservation;

/** A position in a subscription's deliveries: (observed_at, id). */
export interface DeliveryCursor {
  at: Date;
  id: bigint;
}

/** One page request of one subscription's deliveries (resolveCursorConnection's parameters). */
export interface DeliveryPage {
  subscriptionId: number;
  /** Forward (newest first): rows strictly older than `after`. */
  after?: DeliveryCursor;
  /** Backward (`last` / `before`): rows strictly newer than `before`, oldest first. */
  before?: DeliveryCursor;
  limit: number;
  inverted: boolean;
}

/** The opaque cursor of an observation: base64url of `<observed_at ms>:<id>`. */
export function encodeDeliveryCursor(row: { observedAt: Date; id: bigint }): string {
  return Buffer.from(`${row.observedAt.getTime()}:${row.id}`).toString('base64url');
}

/** Decodes a cursor; anything else → 40501 naming the argument. */
export function decodeDeliveryCursor(cursor: string | undefined, argument: string): DeliveryCursor | undefined {
  if (cursor === undefined) return undefined;
  const match = /^(\d{1,15}):(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw DomainError.invalidField(argument);
  return { at: new Date(Number(match[1])), id: BigInt(match[2]!) };
}

/** The same page for every subscription of a group, so one query answers the group. */
function shapeOf(page: DeliveryPage): string {
  const c = (x?: DeliveryCursor) => (x ? `${x.at.getTime()}:${x.id}` : '');
  return `${c(page.after)}|${c(page.before)}|${page.limit}|${page.inverted}`;
}

async function pageIds(db: Db, pages: DeliveryPage[]): Promise<{ subscription_id: number; id: bigint }[]> {
  const { after, before, limit, inverted } = pages[0]!;
  const cursor = after ?? before;
  const params: unknown[] = [pages.map((p) => p.subscriptionId), limit];
  let condition = '';
  if (cursor) {
    params.push(cursor.at, cursor.id);
    condition = `AND (o.observed_at, o.id) ${after ? '<' : '>'} ($3::timestamptz, $4::bigint)`;
  }
  const direction = inverted ? 'ASC' : 'DESC';
  return db.prisma.$queryRawUnsafe(
    `SELECT s.id AS subscription_id, page.id
       FROM unnest($1::int[]) WITH ORDINALITY AS s(id, n)
       CROSS JOIN LATERAL (
         SELECT o.id FROM observations o
          WHERE o.subscription_id = s.id ${condition}
          ORDER BY o.observed_at ${direction}, o.id ${direction}
          LIMIT $2
       ) page
      ORDER BY s.n`,
    ...params,
  );
}

/** The request's loader of delivery pages. */
export function deliveriesLoader(db: Db): DataLoader<DeliveryPage, ObservationRow[], string> {
  return new DataLoader(async (pages) => {
    const groups = new Map<string, DeliveryPage[]>();
    for (const page of pages) groups.set(shapeOf(page), [...(groups.get(shapeOf(page)) ?? []), page]);
    const idsByPage = new Map<string, bigint[]>();
    for (const [shape, group] of groups) {
      for (const row of await pageIds(db, group)) {
        const key = `${row.subscription_id}|${shape}`;
        idsByPage.set(key, [...(idsByPage.get(key) ?? []), BigInt(row.id)]);
      }
    }
    const allIds = [...idsByPage.values()].flat();
    const byId = await observationsById(db.prisma, allIds);
    return pages.map((page) => (idsByPage.get(`${page.subscriptionId}|${shapeOf(page)}`) ?? []).flatMap((id) => byId.get(id) ?? []));
  }, { cacheKeyFn: (page) => `${page.subscriptionId}|${shapeOf(page)}` });
}
