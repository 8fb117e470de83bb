/**
 * The caller's product tasks (task_post and live): `tasks` (filters, cursor pagination), `task(id)`,
 * and the `postTasks` mutation, which is the REST task_post service itself (validation, plan
 * features, charges, reuse window, workflow starts, codes).
 *
 * Reading a task here never marks it collected: collecting stays task_get's business
 * (GET /v1/retail/product/task_get, tasks_ready). Expired tasks (older than the 30-day
 * retention) are not listed, as task_get does not answer them.
 */
import type { Prisma } from '../../../core/db/prisma.js';
import { DomainError } from '../../../core/errors.js';
import { isUuid } from '../../../core/ids.js';
import type { TaskOutcome } from '../../../core/domain/outcomes.js';
import { answerOncePerKey } from '../../services/idempotent.js';
import { taskPost } from '../../services/product-tasks.js';
import { readRequestFields } from '../../../core/validation/read-fields.js';
import { taskListFilter } from '../../../core/validation/requests.js';
import { builder, connectionComplexity, type RootFieldPolicy } from '../builder.js';
import type { CursorPolicy } from '../cursors.js';
import { metered, requireAccount, type GraphQLContext } from '../context.js';
import { batchPayload, filterArgs, restElement, TaskOutcomeRef } from './outcome.js';
import { ProductRef } from './product.js';
import { STATUS } from '../../../core/domain/status-codes.js';

const DAY_MS = 86_400_000;

export const TaskStatus = builder.enumType('TaskStatus', {
  description: '`queued` and `running` until the task finishes `completed` (20000) or `failed` (40402, 50301; refunded).',
  values: ['queued', 'running', 'completed', 'failed'] as const,
});

export const TaskRef = builder.prismaObject('Task', {
  description: 'A product task of the caller (task_post or live).',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'UUID; the first 8 characters are the UTC MMDDHHmm of creation.' }),
    endpoint: t.exposeString('endpoint', { description: '`task_post` or `live`.' }),
    asin: t.string({ select: { asin: true }, resolve: (task) => task.asin ?? '' }),
    marketplace: t.exposeString('marketplace'),
    priority: t.exposeInt('priority'),
    tag: t.exposeString('tag', { nullable: true }),
    postbackUrl: t.exposeString('postbackUrl', { nullable: true }),
    pingbackUrl: t.exposeString('pingbackUrl', { nullable: true }),
    status: t.field({ type: TaskStatus, description: 'Lifecycle state (the stored `state`).', resolve: (task) => task.state as (typeof TaskStatus)['$inferType'] }),
    statusCode: t.exposeInt('statusCode', { description: '20100 while in progress, then the final code (20000, 40402, 50301).' }),
    statusMessage: t.exposeString('statusMessage'),
    cost: t.float({ description: 'USD charged (0 after a refund).', resolve: (task) => Number(task.cost) }),
    reused: t.exposeBoolean('reused', { description: 'Completed from a stored observation within the reuse window.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
    collectedAt: t.expose('collectedAt', { type: 'DateTime', nullable: true, description: 'When task_get first returned it.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    data: t.expose('data', { type: 'JSON', description: 'The task as received, plus `api` and `function` (REST `data`).' }),
    product: t.field({
      type: ProductRef,
      nullable: true,
      description: 'The Product once the task completed with 20000 (what task_get returns), else null.',
      select: { statusCode: true, observationId: true },
      resolve: async (task, _args, ctx) => {
        if (task.statusCode !== STATUS.OK || task.observationId === null) return null;
        return (await ctx.loaders.observation.load(task.observationId))?.product ?? null;
      },
    }),
  }),
});

/** The caller's unexpired tasks matching the filters; a bad filter → 40501 naming it (REST field rules). */
function taskWhere(ctx: GraphQLContext, args: { status?: string | null; tag?: string | null; from?: string | null; to?: string | null }): Prisma.TaskWhereInput {
  const { tag, from, to } = readRequestFields(taskListFilter, filterArgs({ tag: args.tag, from: args.from, to: args.to }));
  if (from && to && from > to) throw DomainError.invalidField('from');
  const createdAt: Prisma.DateTimeFilter = {};
  if (from) createdAt.gte = new Date(`${from}T00:00:00Z`);
  if (to) createdAt.lt = new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS);
  return {
    accountId: requireAccount(ctx).id,
    kind: 'product',
    expiresAt: { gt: new Date() },
    ...(args.status ? { state: args.status } : {}),
    ...(tag !== undefined ? { tag } : {}),
    ...(from || to ? { createdAt } : {}),
  };
}

builder.queryFields((t) => ({
  tasks: t.prismaConnection({
    type: 'Task',
    cursor: 'id',
    description: 'The caller\'s tasks, newest first. `from` / `to`: UTC days of creation (YYYY-MM-DD, inclusive).',
    args: {
      status: t.arg({ type: TaskStatus }),
      tag: t.arg.string(),
      from: t.arg.string(),
      to: t.arg.string(),
    },
    complexity: connectionComplexity,
    extensions: { cursorValue: (id) => typeof id === 'string' && isUuid(id) } satisfies CursorPolicy,
    resolve: (query, _root, args, ctx) => ctx.db.prisma.task.findMany({ ...query, where: taskWhere(ctx, args), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    totalCount: (_connection, args, ctx) => ctx.db.prisma.task.count({ where: taskWhere(ctx, args) }),
  }),
  task: t.prismaField({
    type: 'Task',
    nullable: true,
    description: 'One of the caller\'s tasks; null for an unknown id, another account\'s task or an expired one.',
    args: { id: t.arg.id({ required: true }) },
    resolve: (query, _root, args, ctx) => {
      const account = requireAccount(ctx);
      const id = String(args.id).toLowerCase();
      if (!isUuid(id)) return null;
      return ctx.db.prisma.task.findFirst({ ...query, where: { id, accountId: account.id, kind: 'product', expiresAt: { gt: new Date() } } });
    },
  }),
}));

const TaskPostInput = builder.inputType('TaskPostInput', {
  description: 'One task_post element (api-spec.md "Product endpoints"); validated by the REST rules.',
  fields: (t) => ({
    asin: t.string({ required: true }),
    marketplace: t.string({ required: true, description: 'Code or alias (us, usa, gb).' }),
    priority: t.int({ description: '1 normal (default), 2 high.' }),
    tag: t.string(),
    postbackUrl: t.string(),
    pingbackUrl: t.string(),
  }),
});

const PostTaskResult = builder.objectRef<TaskOutcome>('PostTaskResult').implement({
  description: 'One task_post element: 20100 when accepted (then `task` is set), else its task-level code.',
  interfaces: [TaskOutcomeRef],
  fields: (t) => ({
    task: t.field({
      type: TaskRef,
      nullable: true,
      resolve: (outcome, _args, ctx) => (outcome.code < STATUS.BAD_REQUEST ? ctx.loaders.task.load(outcome.id) : null),
    }),
  }),
});

const PostTasksPayload = batchPayload('PostTasksPayload', PostTaskResult);

builder.mutationFields((t) => ({
  postTasks: t.field({
    type: PostTasksPayload,
    description:
      'POST /v1/retail/product/task_post: 1 to 100 tasks, charged at posting, same codes and charges. With `idempotencyKey` '
      + '(the REST Idempotency-Key: 1 to 255 visible ASCII characters), the same mutation sent again within 24 hours answers '
      + 'the same tasks and charges nothing; the key with other tasks is refused (40000).',
    args: {
      tasks: t.arg({ type: [TaskPostInput], required: true }),
      idempotencyKey: t.arg.string({ required: false }),
    },
    extensions: { rateLimitTasks: 'tasks', charged: true } satisfies RootFieldPolicy,
    resolve: async (_root, args, ctx) => {
      const account = requireAccount(ctx);
      const body = args.tasks.map((task) => restElement(task, { postbackUrl: 'postback_url', pingbackUrl: 'pingback_url' }));
      if (args.idempotencyKey === null || args.idempotencyKey === undefined) return metered(ctx, await taskPost(ctx.deps, account, body));
      const call = { accountId: account.id, key: args.idempotencyKey, endpoint: 'graphql:postTasks', request: body, field: 'idempotencyKey' };
      const { value, replayed } = await answerOncePerKey(ctx.deps, call, () => taskPost(ctx.deps, account, body));
      // A replay is the earlier call's answer: nothing charged or created now, so nothing metered.
      return replayed ? value : metered(ctx, value);
    },
  }),
}));
