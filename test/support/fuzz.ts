/**
 * Hostile text for boundary tests, and where it can be sent: every string input of the REST API,
 * read from the OpenAPI document the API serves (its request schemas are the validating zod
 * schemas), and every string argument or input field of the GraphQL schema. A field added to a
 * schema is fuzzed without touching the tests.
 */
import type { GraphQLArgument, GraphQLInputType, GraphQLSchema } from 'graphql';
import type { OpenApiDocument } from '../../api/rest/openapi/document.js';

/** What a bad text should get: refused naming its field (`unstorable`), refused (`huge`), or no 5xx (`control`). */
export type BadTextKind = 'unstorable' | 'huge' | 'control';

/** The hostile texts: what PostgreSQL cannot store, sizes far past every bound, control characters. */
export const BAD_TEXTS: readonly { label: string; kind: BadTextKind; value: string }[] = [
  { label: 'NUL', kind: 'unstorable', value: 'a\u0000b' },
  { label: 'lone high surrogate', kind: 'unstorable', value: 'a\uD800b' },
  { label: 'lone low surrogate', kind: 'unstorable', value: 'a\uDC00b' },
  { label: '100 KB', kind: 'huge', value: 'x'.repeat(100_000) },
  { label: '1 MB', kind: 'huge', value: 'y'.repeat(1_000_000) },
  { label: 'control characters', kind: 'control', value: 'c\u0001\u0007\u001b[31m\r\n\t\u007f\u0085d' },
];

/** One string input of a REST operation. */
export interface RestTarget {
  /** `POST /v1/retail/product/task_post` */
  operation: string;
  method: string;
  path: string;
  location: 'body' | 'query' | 'path';
  field: string;
  /** For bodies: whether the body is an array of task objects (so a second element can carry the value). */
  arrayBody?: boolean;
}

type JsonSchema = Record<string, any>;

function resolve(document: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema {
  let current = schema ?? {};
  while (typeof current.$ref === 'string') {
    current = (document.components?.schemas as Record<string, JsonSchema> | undefined)?.[current.$ref.replace('#/components/schemas/', '')] ?? {};
  }
  return current;
}

/** True when a value of `schema` may be a string. */
function admitsString(document: OpenApiDocument, schema: JsonSchema | undefined): boolean {
  const s = resolve(document, schema);
  if (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) return true;
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some((branch: JsonSchema) => admitsString(document, branch));
}

/** The object schema of a body: the object itself, the items of an array, or the object branch of a union. */
function bodyObject(document: OpenApiDocument, schema: JsonSchema | undefined): { object: JsonSchema; arrayBody: boolean } | undefined {
  const s = resolve(document, schema);
  if (s.type === 'object' || s.properties) return { object: s, arrayBody: false };
  if (s.type === 'array') {
    const items = resolve(document, s.items);
    if (items.properties) return { object: items, arrayBody: (s.maxItems ?? 2) > 1 };
    // An element of several forms (monitoring/add: a product or a keyword): the fields of every form.
    const forms = [...(items.anyOf ?? []), ...(items.oneOf ?? [])].map((branch: JsonSchema) => resolve(document, branch)).filter((branch) => branch.properties);
    if (forms.length === 0) return undefined;
    return { object: { type: 'object', properties: Object.assign({}, ...forms.map((form) => form.properties)) }, arrayBody: (s.maxItems ?? 2) > 1 };
  }
  for (const branch of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) {
    const found = bodyObject(document, branch);
    if (found && !found.arrayBody && resolve(document, branch).type !== 'array') return found;
  }
  return undefined;
}

/**
 * Every string input of every operation of the document: path and query parameters (all of them
 * travel as text) and the body properties that admit a string.
 */
export function restTargets(document: OpenApiDocument): RestTarget[] {
  const out: RestTarget[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, any>)) {
      const operation = `${method.toUpperCase()} ${path}`;
      for (const parameter of op.parameters ?? []) {
        if (parameter.in === 'path' || parameter.in === 'query') out.push({ operation, method: method.toUpperCase(), path, location: parameter.in, field: parameter.name });
      }
      const body = bodyObject(document, op.requestBody?.content?.['application/json']?.schema);
      for (const [field, schema] of Object.entries<JsonSchema>(body?.object.properties ?? {})) {
        if (admitsString(document, schema)) out.push({ operation, method: method.toUpperCase(), path, location: 'body', field, arrayBody: body!.arrayBody });
      }
    }
  }
  return out;
}

/**
 * Percent-encodes text for a URL; an unpaired surrogate (which `encodeURIComponent` refuses) is
 * sent as the three bytes it would take in UTF-8 (WTF-8), as a hostile client would.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** One string argument (or string field of an input argument) of a GraphQL field. */
export interface GraphQLTarget {
  /** `Type.field` of the field taking the argument. */
  coordinate: string;
  /** Where the value goes in the variables: `['tag']`, `['tasks', 0, 'postbackUrl']`. */
  variablePath: (string | number)[];
  /** The argument or input field's own name. */
  name: string;
}

/** Unwraps non-null and list types; `list` tells whether a list was on the way. */
function named(type: GraphQLInputType): { name: string; list: boolean; fields?: () => Record<string, { type: GraphQLInputType }> } {
  let current: any = type;
  let list = false;
  while (current.ofType) {
    if (current.constructor.name === 'GraphQLList') list = true;
    current = current.ofType;
  }
  return { name: current.name, list, fields: typeof current.getFields === 'function' && !current.getValues ? () => current.getFields() : undefined };
}

/** The string leaves of one argument. */
function argumentTargets(coordinate: string, argument: GraphQLArgument): GraphQLTarget[] {
  const type = named(argument.type);
  if (type.name === 'String' || type.name === 'ID') return [{ coordinate, variablePath: [argument.name], name: argument.name }];
  if (!type.fields) return [];
  return Object.entries(type.fields())
    .filter(([, field]) => ['String', 'ID'].includes(named(field.type).name))
    .map(([name]) => ({ coordinate, variablePath: type.list ? [argument.name, 0, name] : [argument.name, name], name }));
}

/** Every String / ID argument, and String / ID field of an input argument, of every field of the schema. */
export function graphqlTargets(schema: GraphQLSchema): GraphQLTarget[] {
  const out: GraphQLTarget[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !('getFields' in type) || 'getValues' in type) continue;
    for (const field of Object.values((type as { getFields(): Record<string, { name: string; args?: readonly GraphQLArgument[] }> }).getFields())) {
      for (const argument of field.args ?? []) out.push(...argumentTargets(`${type.name}.${field.name}`, argument));
    }
  }
  return out;
}

/** A copy of `value` with `path` set to `leaf`. */
export function withValue(value: unknown, path: (string | number)[], leaf: unknown): any {
  const copy = structuredClone(value) as any;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path.at(-1)!] = leaf;
  return copy;
}
