/**
 * The GraphQL schema as a contract: schema.graphql must be what `npm run graphql:schema` prints
 * (drift check), and the shape itself keeps account-owned data behind the caller: shared product
 * types lead to no account-owned type, there is no global `node(id)` loader, and only reference
 * data answers without authentication.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RootFieldPolicy } from '../../api/graphql/builder.js';
import { SCHEMA_FILE } from '../../api/graphql/print-schema.js';
import { parse, validate } from '../../api/graphql/graphql-js.js';
import { queryShapeRule } from '../../api/graphql/query-shape.js';
import { renderSchema, schema } from '../../api/graphql/schema/index.js';

/** Named output types reachable from `start` through fields (duck-typed: no graphql-js import here). */
function reachable(start: string): Set<string> {
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const type = schema.getType(name) as { getFields?: () => Record<string, { type: unknown }>; getTypes?: () => { name: string }[] } | undefined;
    for (const field of Object.values(type?.getFields?.() ?? {})) {
      let t = field.type as { ofType?: unknown; name?: string };
      while (t.ofType) t = t.ofType as typeof t;
      if (t.name) visit(t.name);
    }
    for (const member of type?.getTypes?.() ?? []) visit(member.name);
  };
  visit(start);
  return seen;
}

describe('GraphQL schema', () => {
  it('schema.graphql is up to date (run `npm run graphql:schema` and commit the result)', () => {
    const checkedIn = fs.existsSync(SCHEMA_FILE) ? fs.readFileSync(SCHEMA_FILE, 'utf8') : '';
    expect(checkedIn, 'schema.graphql differs from the schema: run `npm run graphql:schema`').toBe(renderSchema());
  });

  it('shared product data leads to no account-owned type', () => {
    const owned = ['Account', 'Task', 'MonitoringSubscription', 'DeletedSubscription', 'ApiKey', 'CreatedApiKey', 'UsageReport', 'UsageSummary', 'UsageTotals'];
    for (const shared of ['Product', 'Observation', 'ProductHistory', 'Marketplace', 'MarketplaceStatus']) {
      const types = reachable(shared);
      expect(owned.filter((t) => types.has(t)), `${shared} reaches account-owned types`).toEqual([]);
    }
  });

  it('has no global node / nodes loader and no type named Subscription', () => {
    const query = schema.getQueryType()!.getFields();
    expect(Object.keys(query)).not.toContain('node');
    expect(Object.keys(query)).not.toContain('nodes');
    expect(schema.getType('Subscription')).toBeUndefined();
  });

  it('only reference data answers without authentication; every mutation counts tasks or is revokeKey', () => {
    const publicFields = Object.values(schema.getQueryType()!.getFields()).filter((f) => (f.extensions as RootFieldPolicy).public).map((f) => f.name);
    expect(publicFields.sort()).toEqual(['marketplaces', 'status']);
    for (const field of Object.values(schema.getMutationType()!.getFields())) {
      const policy = field.extensions as RootFieldPolicy;
      expect(policy.public).toBeUndefined();
      if (field.name !== 'revokeKey') expect(policy.rateLimitTasks, field.name).toBeDefined();
    }
  });

  it('the depth rule counts every nested field, through fragments, but not ofType chains', () => {
    const errors = (query: string, max: number) => validate(schema, parse(query), [queryShapeRule(max)]).map((e) => e.message);
    expect(errors('{ subscriptions { edges { node { id } } } }', 4)).toEqual([]);
    expect(errors('{ subscriptions { edges { node { id } } } }', 3)).toEqual(['Bad Request. Query depth exceeds the maximum of 3.']);
    expect(errors('{ subscriptions { ...S } } fragment S on QuerySubscriptionsConnection { edges { node { id } } }', 3)).toHaveLength(1);
    expect(errors('{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }', 5)).toEqual([]);
  });
});
