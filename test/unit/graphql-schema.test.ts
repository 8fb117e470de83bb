/**
 * The GraphQL schema as a contract: schema.graphql must be what `npm run graphql:schema` prints
 * (drift check), and the shape itself keeps account-owned data behind the caller: shared product
 * types lead to no account-owned type, there is no global `node(id)` loader, and only reference
 * data answers without authentication.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/env.js';
import type { RootFieldPolicy } from '../../api/graphql/builder.js';
import { SCHEMA_FILE } from '../../api/graphql/print-schema.js';
import { parse, validate } from '../../api/graphql/graphql-js.js';
import { queryLimitRules } from '../../api/graphql/query-limits.js';
import { QUERY_LIMITS } from '../../api/graphql/builder.js';
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

  it('the dashboard\'s types (dashboard/src/graphql-env.d.ts) are those of schema.graphql (run `npm run graphql:schema`)', () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'rda-tada-')), 'graphql-env.d.ts');
    execFileSync(path.join(repoRoot, 'node_modules/.bin/gql-tada'), ['generate', 'output', '-c', 'dashboard/tsconfig.json', '-o', out], { cwd: repoRoot, stdio: 'pipe' });
    const checkedIn = fs.readFileSync(path.join(repoRoot, 'dashboard/src/graphql-env.d.ts'), 'utf8');
    expect(checkedIn === fs.readFileSync(out, 'utf8'), 'dashboard/src/graphql-env.d.ts differs from schema.graphql: run `npm run graphql:schema`').toBe(true);
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
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

  it('only reference data answers without authentication; every mutation counts tasks or is revokeKey / redeliverWebhook (no task objects, as their REST calls)', () => {
    const publicFields = Object.values(schema.getQueryType()!.getFields()).filter((f) => (f.extensions as RootFieldPolicy).public).map((f) => f.name);
    expect(publicFields.sort()).toEqual(['marketplaces', 'status']);
    for (const field of Object.values(schema.getMutationType()!.getFields())) {
      const policy = field.extensions as RootFieldPolicy;
      expect(policy.public).toBeUndefined();
      if (field.name !== 'revokeKey' && field.name !== 'redeliverWebhook') expect(policy.rateLimitTasks, field.name).toBeDefined();
    }
  });

  it('the depth limit counts every nested field, through fragments; introspection may not recurse, even through fragments', () => {
    const errors = (query: string) => validate(schema, parse(query), queryLimitRules({ production: false })).map((e) => e.message);
    // Only the limit rules run here, so the field names need not exist.
    const nested = (depth: number) => `${'{ a '.repeat(depth - 1)}{ b }${' }'.repeat(depth - 1)}`;
    expect(errors(nested(QUERY_LIMITS.depth))).toEqual([]);
    expect(errors(nested(QUERY_LIMITS.depth + 1))).toEqual([`Bad Request. Query depth limit of ${QUERY_LIMITS.depth} exceeded, found ${QUERY_LIMITS.depth + 1}.`]);
    expect(errors(`{ a { ...F } } fragment F on A ${nested(QUERY_LIMITS.depth - 1)}`)).toEqual([]);
    expect(errors(`query { ...F ...G } fragment F on Query { a { ...G } } fragment G on Query { a ${nested(QUERY_LIMITS.depth - 1)} }`))
      .toEqual([`Bad Request. Query depth limit of ${QUERY_LIMITS.depth} exceeded, found ${QUERY_LIMITS.depth + 1}.`]);
    expect(errors('{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }')).toEqual([]);
    expect(errors('{ __schema { types { ...T } } } fragment T on __Type { fields { type { ...U } } } fragment U on __Type { name fields { name } }'))
      .toEqual(['Bad Request. Introspection field "fields" repeats within itself.']);
  });
});
