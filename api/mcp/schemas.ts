/**
 * JSON Schemas of the MCP tools, derived from the request schemas the services validate with
 * (core/validation): the tool's input schema is the REST body element's, so an agent sees the same
 * fields, limits and descriptions as /openapi.json. zod 4's `z.toJSONSchema` does the conversion;
 * the `override` metadata our field schemas carry for the OpenAPI document (the case-insensitive
 * patterns the services really accept) is applied here the same way. Nested schemas with an id
 * (alert rules) stay in `$defs`, referenced.
 */
import { z } from 'zod';

/** A JSON Schema object (draft 2020-12) as MCP carries it. */
export type JsonSchema = { type: 'object'; properties?: Record<string, object>; required?: string[]; [key: string]: unknown };

/** Applies every `override` object in place (its keys replace the node's) and removes the key. */
function applyOverrides(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) applyOverrides(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  const override = record.override;
  if (override && typeof override === 'object') {
    delete record.override;
    Object.assign(record, override);
  }
  for (const value of Object.values(record)) applyOverrides(value);
}

/**
 * The input JSON Schema of `schema` (an object schema of core/validation): inlined (no `$ref`),
 * `extra` properties added (inputs the tool has beyond the REST element, e.g. an idempotency key).
 */
export function toolInputSchema(schema: z.ZodObject, extra: Record<string, object> = {}): JsonSchema {
  const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', reused: 'inline' }) as Record<string, unknown>;
  const ref = typeof generated.$ref === 'string' ? generated.$ref.replace('#/$defs/', '') : undefined;
  const defs = generated.$defs as Record<string, Record<string, unknown>> | undefined;
  const body: Record<string, unknown> = { ...(ref && defs?.[ref] ? defs[ref] : generated) };
  delete body.$schema;
  // Nested schemas with an id of their own (alert rules) stay referenced from $defs.
  const nested = Object.fromEntries(Object.entries(defs ?? {}).filter(([id]) => id !== ref));
  if (Object.keys(nested).length > 0) body.$defs = nested;
  applyOverrides(body);
  return { ...body, type: 'object', properties: { ...(body.properties as Record<string, object> | undefined), ...extra } };
}

/** The output of every tool: the one task of the REST envelope it stands for, without `time`, `path` and `data`. */
export const TASK_OUTPUT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The task id (UUID).' },
    status_code: { type: 'integer', description: 'The task\'s status code (20000 OK; api-spec.md "Errors").' },
    status_message: { type: 'string' },
    cost: { type: 'number', description: 'USD charged for this call.' },
    result_count: { type: 'integer' },
    result: { type: 'array', items: { type: 'object' }, description: 'The result objects, as the REST task\'s `result`.' },
  },
  required: ['id', 'status_code', 'status_message', 'cost', 'result_count', 'result'],
};
