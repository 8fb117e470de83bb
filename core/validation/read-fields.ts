/**
 * Reads one object (a body element, a query string, path parameters) with an object schema of
 * core/validation/requests.ts, field by field in the schema's key order, and maps the first field
 * that fails to its spec code (api-spec.md "Errors"): 40502 / 40503 when the field's value has the
 * right type but is refused (fields.ts `valueCodes`: marketplace, ASIN), else 40501 naming it.
 * Element errors fail one task (`TaskError`); query and path errors fail the request (`AppError`).
 *
 * Text the database cannot store (core/storable-text.ts: U+0000, unpaired surrogates) is refused
 * here for every field before its own rule, and for every other key of the object too (those are
 * echoed in the task's `data`, which is stored): 40501 naming the field or key.
 */
import type { z } from 'zod';
import { DomainError } from '../errors.js';
import { isStorableText, isStorableValue, printableName } from '../storable-text.js';
import { detailedFields, valueCodes, type ValueCodeKey } from './fields.js';

/** Extra checks run right after a field parses (rules that need configuration, e.g. WEBHOOK_ALLOWLIST); false → 40501 naming it. */
export type FieldChecks<S extends z.ZodObject> = { [K in keyof z.output<S>]?: (value: z.output<S>[K]) => boolean };

/** Wrappers that keep their inner field's rule (the code registered for it). */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault']);

/** The code registered for `schema` or the field it wraps (`asin.nullish()` → 40503). */
function valueCodeOf(schema: z.ZodType): ValueCodeKey | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    const code = valueCodes.get(current)?.code;
    if (code) return code;
    const def = current._zod.def as { type: string; innerType?: z.ZodType };
    current = WRAPPERS.has(def.type) ? def.innerType : undefined;
  }
  return undefined;
}

/** True when `schema` or the field it wraps is registered in `detailedFields`. */
function isDetailed(schema: z.ZodType): boolean {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (detailedFields.has(current)) return true;
    const def = current._zod.def as { type: string; innerType?: z.ZodType };
    current = WRAPPERS.has(def.type) ? def.innerType : undefined;
  }
  return false;
}

/** A rule's message fit for an answer: it may quote the refused input, so it is cut at 300 characters. */
const detailOf = (message: string) => printableName(message, 300);

/** `alerts` + [1, 'value'] → `alerts[1].value`. */
function nestedName(field: string, path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, key) => (typeof key === 'number' ? `${name}[${key}]` : `${name}.${String(key)}`), field);
}

/**
 * Parses `input[field]` (an absent key is `undefined`) with the schema's field. A field registered
 * in `detailedFields` (a list of objects, say) is named down to the failing element and key, with
 * the rule's message after the spec's (`Invalid field: \`alerts[1].value\`. …`).
 * @throws TaskError 40501 naming the field (text the database cannot store, wrong type, format,
 *   bounds), 40502 / 40503 (see above).
 */
export function readField<S extends z.ZodObject, K extends keyof z.output<S> & string>(schema: S, field: K, input: Record<string, unknown>): z.output<S>[K] {
  const fieldSchema = schema.shape[field] as z.ZodType | undefined;
  if (!fieldSchema) throw new Error(`the schema has no field ${field}`);
  const raw = Object.hasOwn(input, field) ? input[field] : undefined;
  if (!isStorableValue(raw)) throw DomainError.invalidField(field);
  const parsed = fieldSchema.safeParse(raw);
  if (parsed.success) return parsed.data as z.output<S>[K];
  const issue = parsed.error.issues[0];
  if (issue && isDetailed(fieldSchema)) throw DomainError.invalidField(printableName(nestedName(field, issue.path)), detailOf(issue.message));
  const code = issue?.code === 'invalid_type' ? undefined : valueCodeOf(fieldSchema);
  throw code ? new DomainError(code) : DomainError.invalidField(field);
}

/**
 * Reads every field of `schema` from a body element, in the schema's key order; keys the schema
 * does not name are otherwise ignored (they are still echoed in the task's `data`) but must hold
 * storable text, checked after the schema's fields.
 * @returns the parsed element (defaults applied, absent optional fields left out).
 * @throws TaskError for the first field that fails (40501 / 40502 / 40503) or whose `checks` entry
 *   returns false (40501), then 40501 naming the first other key that is not storable.
 */
export function readTaskFields<S extends z.ZodObject>(schema: S, element: Record<string, unknown>, checks: FieldChecks<S> = {}): z.output<S> {
  const out: Record<string, unknown> = {};
  for (const field of Object.keys(schema.shape) as (keyof z.output<S> & string)[]) {
    const value = readField(schema, field, element);
    const check = checks[field];
    if (check && !check(value)) throw DomainError.invalidField(field);
    if (value !== undefined) out[field] = value;
  }
  checkOtherKeys(schema, element);
  return out as z.output<S>;
}

/**
 * The keys of `element` that `schema` does not name (echoed in the task's `data`) must hold
 * storable text, key and value. @throws TaskError 40501 naming the first that does not.
 */
export function checkOtherKeys(schema: z.ZodObject, element: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(element)) {
    if (Object.hasOwn(schema.shape, key)) continue;
    if (!isStorableText(key) || !isStorableValue(value)) throw DomainError.invalidField(printableName(key));
  }
}

/**
 * Like `readTaskFields` for a query string or path parameters, where a bad field fails the whole
 * request. @throws AppError 40501 naming the field (HTTP 400).
 */
export function readRequestFields<S extends z.ZodObject>(schema: S, input: Record<string, unknown>): z.output<S> {
  try {
    return readTaskFields(schema, input);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw error;
  }
}
