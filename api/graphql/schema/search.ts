/**
 * Search (search-page-contract.md "API"): the SearchResults observation, `search` (the latest
 * stored read of a keyword's results page, shared data like `Product`), the caller's search tasks
 * (`searchTasks`, cursor pagination as `tasks`), `rankHistory` and the `postSearchTasks` mutation.
 * `rankHistory` and `postSearchTasks` run the REST services themselves (validation, plan features,
 * charges, reuse window, workflow starts, codes, Idempotency-Key rule).
 */
import { DomainError } from '../../../core/errors.js';
import { isUuid } from '../../../core/ids.js';
import { isErrorCode, STATUS } from '../../../core/domain/status-codes.js';
import type { TaskOutcome } from '../../../core/domain/outcomes.js';
import { latestSearch, searchResultsById, type RankPoint } from '../../../core/search-observations.js';
import type { SearchItem, SearchResults } from '../../../core/search.js';
import { readRequestFields } from '../../../core/validation/read-fields.js';
import { searchKey } from '../../../core/validation/search-fields.js';
import { answerOncePerKey } from '../../services/idempotent.js';
import { searchRankHistory, searchTaskPost } from '../../services/search-tasks.js';
import { builder, connectionComplexity, IN_MEMORY_LIST, type RootFieldPolicy } from '../builder.js';
import type { CursorPolicy } from '../cursors.js';
import { metered, requireAccount } from '../context.js';
import { batchPayload, restElement, TaskOutcomeRef } from './outcome.js';
import { PriceRef } from './product.js';
import { TaskStatus } from './task.js';

const SearchStatus = builder.enumType('SearchStatus', {
  description: '`ok`: at least one result card; `no_results`: the "No results for …" page (an answer, charged).',
  values: ['ok', 'no_results'] as const,
});

const SearchItemRef = builder.objectRef<SearchItem>('SearchItem').implement({
  description: 'One card of the main result grid (search-page-contract.md "Item fields").',
  fields: (t) => ({
    position: t.exposeInt('position', { description: '1-based among the items of the page, sponsored included.' }),
    organicPosition: t.exposeInt('organic_position', { nullable: true, description: '1-based among the non-sponsored items of the page; null when sponsored.' }),
    sponsored: t.exposeBoolean('sponsored'),
    asin: t.exposeString('asin'),
    url: t.exposeString('url'),
    title: t.exposeString('title', { nullable: true }),
    brand: t.exposeString('brand', { nullable: true }),
    price: t.field({ type: PriceRef, nullable: true, resolve: (i) => i.price }),
    listPrice: t.field({ type: PriceRef, nullable: true, resolve: (i) => i.list_price }),
    rating: t.exposeFloat('rating', { nullable: true }),
    ratingsCount: t.exposeInt('ratings_count', { nullable: true }),
    boughtPastMonth: t.exposeInt('bought_past_month', { nullable: true, description: 'Lower bound of "N+ bought in past month".' }),
    badges: t.exposeStringList('badges'),
    prime: t.exposeBoolean('prime', { nullable: true }),
    coupon: t.exposeString('coupon', { nullable: true }),
    delivery: t.exposeString('delivery', { nullable: true }),
    imageUrl: t.exposeString('image_url', { nullable: true }),
    variantsCount: t.exposeInt('variants_count', { nullable: true }),
  }),
});

export const SearchResultsRef = builder.objectRef<SearchResults>('SearchResults').implement({
  description: 'One read of a search results page (REST: the SearchResults object, camel-cased).',
  fields: (t) => ({
    keyword: t.exposeString('keyword', { description: 'As posted: trimmed, inner white space collapsed, case kept.' }),
    marketplace: t.exposeString('marketplace'),
    page: t.exposeInt('page'),
    url: t.exposeString('url'),
    observedAt: t.exposeString('observed_at', { description: 'ISO 8601, UTC.' }),
    parserVersion: t.exposeString('parser_version'),
    status: t.field({ type: SearchStatus, resolve: (r) => r.status }),
    totalResults: t.field({ type: 'Float', nullable: true, description: 'Lower bound stated by the result-count line.', resolve: (r) => r.total_results }),
    resultsText: t.exposeString('results_text', { nullable: true }),
    items: t.field({ type: [SearchItemRef], complexity: IN_MEMORY_LIST, resolve: (r) => r.items }),
  }),
});

const RankPointRef = builder.objectRef<RankPoint>('RankPoint').implement({
  description: 'Where the ASIN stood in one stored read of the keyword; position fields null when it was absent.',
  fields: (t) => ({
    observedAt: t.exposeString('observed_at'),
    page: t.exposeInt('page'),
    position: t.exposeInt('position', { nullable: true }),
    organicPosition: t.exposeInt('organic_position', { nullable: true }),
    sponsored: t.exposeBoolean('sponsored', { nullable: true }),
  }),
});

const RankHistoryRef = builder.objectRef<{ cost: number; points: RankPoint[] }>('RankHistory').implement({
  description: 'rankHistory\'s answer: what it cost (USD) and the reads, newest first.',
  fields: (t) => ({
    cost: t.exposeFloat('cost'),
    points: t.field({ type: [RankPointRef], complexity: IN_MEMORY_LIST, resolve: (h) => h.points }),
  }),
});

export const SearchTaskRef = builder.prismaObject('Task', {
  variant: 'SearchTask',
  description: 'A search task of the caller (search task_post or live).',
  fields: (t) => ({
    id: t.exposeID('id'),
    endpoint: t.exposeString('endpoint', { description: '`task_post` or `live`.' }),
    keyword: t.string({ select: { keyword: true }, resolve: (task) => task.keyword ?? '' }),
    pages: t.int({ select: { pages: true }, resolve: (task) => task.pages ?? 1 }),
    marketplace: t.exposeString('marketplace'),
    priority: t.exposeInt('priority'),
    tag: t.exposeString('tag', { nullable: true }),
    status: t.field({ type: TaskStatus, resolve: (task) => task.state as (typeof TaskStatus)['$inferType'] }),
    statusCode: t.exposeInt('statusCode'),
    statusMessage: t.exposeString('statusMessage'),
    cost: t.float({ description: 'USD charged (after refunds).', resolve: (task) => Number(task.cost) }),
    reused: t.exposeBoolean('reused', { description: 'Completed from stored reads within the 60-minute reuse window.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    data: t.expose('data', { type: 'JSON' }),
    results: t.field({
      type: [SearchResultsRef],
      nullable: true,
      description: 'One SearchResults per page read once the task completed with 20000 (what task_get returns), else null.',
      complexity: IN_MEMORY_LIST,
      select: { statusCode: true, searchObservationIds: true },
      resolve: async (task, _args, ctx) => {
        if (task.statusCode !== STATUS.OK) return null;
        const byId = await searchResultsById(ctx.db, task.searchObservationIds);
        return task.searchObservationIds.flatMap((id) => byId.get(id) ?? []);
      },
    }),
  }),
});

builder.queryFields((t) => ({
  search: t.field({
    type: SearchResultsRef,
    nullable: true,
    description: 'The latest stored read of a keyword\'s results page (case-insensitive keyword, `page` 1..5, default 1), from any request or subscription; null when none. Free.',
    args: { keyword: t.arg.string({ required: true }), marketplace: t.arg.string({ required: true }), page: t.arg.int() },
    resolve: async (_root, args, ctx) => {
      requireAccount(ctx);
      const q = readRequestFields(searchKey, { keyword: args.keyword, marketplace: args.marketplace, ...(args.page == null ? {} : { page: args.page }) });
      return (await latestSearch(ctx.db, { keyword: q.keyword, marketplace: q.marketplace.code, page: q.page }))?.results ?? null;
    },
  }),
  rankHistory: t.field({
    type: RankHistoryRef,
    description: 'Where `asin` stood in the stored reads of `keyword` on `marketplace` over the last `days` (1..365, default 30), newest first. '
      + 'Charged per call at the plan\'s `history` rate exactly like POST /v1/retail/search/rank_history. Refused over GET.',
    args: { keyword: t.arg.string({ required: true }), marketplace: t.arg.string({ required: true }), asin: t.arg.string({ required: true }), days: t.arg.int() },
    extensions: { rateLimitTasks: 1, charged: true } satisfies RootFieldPolicy,
    complexity: { field: 10, multiplier: 1 },
    resolve: async (_root, args, ctx) => {
      const element: Record<string, unknown> = { keyword: args.keyword, marketplace: args.marketplace, asin: args.asin };
      if (args.days !== undefined) element.days = args.days;
      const outcome = metered(ctx, await searchRankHistory(ctx.deps, requireAccount(ctx), [element]));
      const task = outcome.tasks[0]!;
      if (isErrorCode(task.code)) throw DomainError.ofCode(task.code, task.message);
      return { cost: task.cost, points: (task.result ?? []) as RankPoint[] };
    },
  }),
  searchTasks: t.prismaConnection({
    type: SearchTaskRef,
    cursor: 'id',
    description: 'The caller\'s search tasks, newest first (expired ones are not listed).',
    args: { status: t.arg({ type: TaskStatus }) },
    complexity: connectionComplexity,
    extensions: { cursorValue: (id) => typeof id === 'string' && isUuid(id) } satisfies CursorPolicy,
    resolve: (query, _root, args, ctx) => ctx.db.prisma.task.findMany({
      ...query,
      where: { accountId: requireAccount(ctx).id, kind: 'search', expiresAt: { gt: new Date() }, ...(args.status ? { state: args.status } : {}) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    }),
    totalCount: (_connection, args, ctx) => ctx.db.prisma.task.count({
      where: { accountId: requireAccount(ctx).id, kind: 'search', expiresAt: { gt: new Date() }, ...(args.status ? { state: args.status } : {}) },
    }),
  }),
}));

const SearchTaskPostInput = builder.inputType('SearchTaskPostInput', {
  description: 'One search task_post element (search-page-contract.md "API"); validated by the REST rules.',
  fields: (t) => ({
    keyword: t.string({ required: true }),
    marketplace: t.string({ required: true }),
    pages: t.int({ description: '1..5 (default 1); charged per page.' }),
    priority: t.int({ description: '1 normal (default), 2 high.' }),
    tag: t.string(),
    postbackUrl: t.string(),
    pingbackUrl: t.string(),
  }),
});

const PostSearchTaskResult = builder.objectRef<TaskOutcome>('PostSearchTaskResult').implement({
  description: 'One search task_post element: 20100 when accepted (then `task` is set), else its task-level code.',
  interfaces: [TaskOutcomeRef],
  fields: (t) => ({
    task: t.prismaField({
      type: SearchTaskRef,
      nullable: true,
      resolve: (query, outcome, _args, ctx) => (outcome.code < STATUS.BAD_REQUEST ? ctx.db.prisma.task.findFirst({ ...query, where: { id: outcome.id, accountId: requireAccount(ctx).id } }) : null),
    }),
  }),
});

const PostSearchTasksPayload = batchPayload('PostSearchTasksPayload', PostSearchTaskResult);

builder.mutationFields((t) => ({
  postSearchTasks: t.field({
    type: PostSearchTasksPayload,
    description: 'POST /v1/retail/search/task_post: 1 to 100 search tasks, charged at posting per page, same codes and charges. '
      + '`idempotencyKey` as postTasks\' (the REST Idempotency-Key).',
    args: {
      tasks: t.arg({ type: [SearchTaskPostInput], required: true }),
      idempotencyKey: t.arg.string({ required: false }),
    },
    extensions: { rateLimitTasks: 'tasks', charged: true } satisfies RootFieldPolicy,
    resolve: async (_root, args, ctx) => {
      const account = requireAccount(ctx);
      const body = args.tasks.map((task) => restElement(task, { postbackUrl: 'postback_url', pingbackUrl: 'pingback_url' }));
      if (args.idempotencyKey === null || args.idempotencyKey === undefined) return metered(ctx, await searchTaskPost(ctx.deps, account, body));
      const call = { accountId: account.id, key: args.idempotencyKey, endpoint: 'graphql:postSearchTasks', request: body, field: 'idempotencyKey' };
      const { value, replayed } = await answerOncePerKey(ctx.deps, call, () => searchTaskPost(ctx.deps, account, body));
      return replayed ? value : metered(ctx, value);
    },
  }),
}));
