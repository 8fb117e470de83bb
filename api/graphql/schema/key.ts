/**
 * API keys of the caller: listed as prefix + last four (never the key nor its hash), created with
 * `createKey` (the full key appears once, in its result) and revoked with `revokeKey` — the REST
 * keys services themselves (20 active keys at most, the key in use revocable only while another is
 * active, 40400 for an id that is not one of the caller's active keys). Keys cost nothing.
 */
import type { KeyListing } from '../../services/api-keys.js';
import { createKeys, revokeKey } from '../../services/api-keys.js';
import type { TaskOutcome } from '../../../core/domain/outcomes.js';
import { builder, type RootFieldPolicy } from '../builder.js';
import { metered, requireAccount } from '../context.js';
import { TaskOutcomeRef } from './outcome.js';
import { STATUS } from '../../../core/domain/status-codes.js';

type KeyShape = KeyListing & { revoked_at?: string; key?: string };

export const ApiKeyRef = builder.objectRef<KeyShape>('ApiKey').implement({
  description: 'An API key of the caller, as user_data lists it.',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The `key_id` of DELETE /v1/appendix/keys/{key_id} and `revokeKey`.' }),
    prefix: t.exposeString('prefix'),
    last4: t.exposeString('last4'),
    label: t.exposeString('label', { nullable: true }),
    createdAt: t.field({ type: 'DateTime', resolve: (k) => new Date(k.created_at) }),
    revokedAt: t.field({ type: 'DateTime', nullable: true, resolve: (k) => (k.revoked_at ? new Date(k.revoked_at) : null) }),
  }),
});

const CreatedApiKeyRef = builder.objectRef<KeyShape>('CreatedApiKey').implement({
  description: 'A new key: `key` is shown here once and never again.',
  fields: (t) => ({
    key: t.string({ resolve: (k) => k.key ?? '' }),
    apiKey: t.field({ type: ApiKeyRef, resolve: (k) => k }),
  }),
});

/** The key of a successful keys task (its `result[0]`), else null. */
function keyOf(outcome: TaskOutcome): KeyShape | null {
  return outcome.code === STATUS.OK ? ((outcome.result?.[0] as KeyShape | undefined) ?? null) : null;
}

const CreateKeyPayload = builder.objectRef<TaskOutcome>('CreateKeyPayload').implement({
  description: 'POST /v1/appendix/keys with one element: 20000 with the key, or task-level 40000 at 20 active keys.',
  interfaces: [TaskOutcomeRef],
  fields: (t) => ({
    created: t.field({ type: CreatedApiKeyRef, nullable: true, resolve: keyOf }),
  }),
});

const RevokeKeyPayload = builder.objectRef<TaskOutcome>('RevokeKeyPayload').implement({
  description: 'DELETE /v1/appendix/keys/{key_id}: 20000 with the revoked key, or task-level 40000 for the only active key.',
  interfaces: [TaskOutcomeRef],
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyRef, nullable: true, resolve: keyOf }),
  }),
});

builder.mutationFields((t) => ({
  createKey: t.field({
    type: CreateKeyPayload,
    description: 'Creates an API key (label: at most 100 characters).',
    args: { label: t.arg.string() },
    extensions: { rateLimitTasks: 1 } satisfies RootFieldPolicy,
    resolve: async (_root, args, ctx) => {
      const element = args.label === undefined ? {} : { label: args.label };
      const outcome = metered(ctx, await createKeys(ctx.db, requireAccount(ctx), [element]));
      return outcome.tasks[0]!;
    },
  }),
  revokeKey: t.field({
    type: RevokeKeyPayload,
    description: 'Revokes one of the caller\'s active keys by id; effective on the very next request (40101).',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const outcome = metered(ctx, await revokeKey(ctx.db, requireAccount(ctx), String(args.id)));
      return outcome.tasks[0]!;
    },
  }),
}));
