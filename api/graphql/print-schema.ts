/**
 * `npm run graphql:schema`: writes the GraphQL schema (SDL) to schema.graphql at the repository
 * root. test/unit/graphql-schema.test.ts fails when the checked-in file differs, so CI catches a
 * schema change that was not printed and reviewed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderSchema } from './schema/index.js';

/** schema.graphql at the repository root. */
export const SCHEMA_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schema.graphql');

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(SCHEMA_FILE, renderSchema());
  console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}`);
}
