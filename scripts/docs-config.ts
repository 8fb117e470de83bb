/**
 * `npm run docs:config`: writes the configuration table of docs/operations.md (between
 * `<!-- config-table:start -->` and `<!-- config-table:end -->`) from the zod schema of
 * core/config.ts: each variable, its type or allowed values, its default and its `.describe()`
 * text. test/unit/docs.test.ts fails when the committed table differs from this rendering.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ms from 'ms';
import { z } from 'zod';
import { configSchema } from '../core/config.js';

export const CONFIG_TABLE_START = '<!-- config-table:start -->';
export const CONFIG_TABLE_END = '<!-- config-table:end -->';
export const operationsDoc = fileURLToPath(new URL('../docs/operations.md', import.meta.url));

/** The zod internals this script reads (zod 4 `_zod.def`), typed loosely on purpose. */
type Node = z.ZodType & { _zod: { def: Record<string, unknown> & { type: string } } };

const child = (node: Node, key: string): Node | undefined => node._zod.def[key] as Node | undefined;

/** The nodes under `node`, output side first (a pipe's `out` before its `in`). */
function children(node: Node): Node[] {
  const def = node._zod.def;
  switch (def.type) {
    case 'pipe':
      return [child(node, 'out'), child(node, 'in')].filter((n): n is Node => n !== undefined);
    case 'default':
    case 'optional':
    case 'nullable':
    case 'prefault':
      return [child(node, 'innerType')].filter((n): n is Node => n !== undefined);
    default:
      return [];
  }
}

/** The metadata `format` of a node (core/config.ts tags its shared parsers with it). */
function format(node: Node): string | undefined {
  const meta = z.globalRegistry.get(node) as { format?: unknown } | undefined;
  return typeof meta?.format === 'string' ? meta.format : undefined;
}

/** What a value of `node` may be, in words; `specific` unless it is only a bare `string`/`number`. */
function describeType(node: Node): { text: string; specific: boolean } {
  const fmt = format(node);
  if (fmt) return { text: fmt, specific: true };
  const def = node._zod.def;
  if (def.type === 'enum') {
    return { text: `one of ${Object.values(def.entries as Record<string, string>).map((v) => `\`${v}\``).join(', ')}`, specific: true };
  }
  if (def.type === 'number') {
    const n = node as unknown as z.ZodNumber;
    const ranged = Number.isFinite(n.minValue ?? NaN) && Number.isFinite(n.maxValue ?? NaN);
    return { text: `${n.isInt ? 'integer' : 'number'}${ranged ? ` ${n.minValue}..${n.maxValue}` : ''}`, specific: ranged };
  }
  if (def.type === 'array') return { text: `comma-separated list of ${typeOf(child(node, 'element')!)}`, specific: true };
  if (def.type === 'string' && def.format === 'url') {
    return { text: `URL${def.protocol instanceof RegExp ? ` (protocol \`${def.protocol.source}\`)` : ''}`, specific: true };
  }
  // A pipe is described by its output unless only its input says more (a duration piped into a number check).
  let fallback: { text: string; specific: boolean } | undefined;
  for (const next of children(node)) {
    const found = describeType(next);
    if (found.specific) return found;
    if (!fallback || fallback.text === 'string') fallback = found;
  }
  return fallback ?? { text: 'string', specific: false };
}

/** What a value of `node` may be, in words (core/config.ts `format` metadata first). */
export function typeOf(node: Node): string {
  return describeType(node).text;
}

/** The default as it would be written in the environment: a string default before parsing, else the parsed value. */
function defaultOf(key: string, node: Node, type: string): string | undefined {
  // A default given as environment text (`z.string().default('80,443').pipe(...)`) is shown as written.
  for (let n: Node | undefined = node; n; n = n._zod.def.type === 'pipe' ? child(n, 'in') : children(n)[0]) {
    if (n._zod.def.type === 'default') {
      const value = n._zod.def.defaultValue;
      if (typeof value === 'string') return value;
      break;
    }
  }
  const parsed = configSchema.shape[key as keyof typeof configSchema.shape].parse(undefined) as unknown;
  if (parsed === undefined) return undefined;
  const durations = type.includes('duration');
  const scalar = (v: unknown): string => (durations && typeof v === 'number' ? ms(v) : String(v));
  if (Array.isArray(parsed)) return parsed.map(scalar).join(',');
  if (typeof parsed === 'object' && parsed !== null) return Object.entries(parsed).map(([k, v]) => `${k}=${scalar(v)}`).join(',');
  return scalar(parsed);
}

/** One row per variable of the configuration schema, in the schema's order. */
export function configRows(): { variable: string; type: string; default: string | undefined; description: string | undefined }[] {
  return Object.entries(configSchema.shape).map(([variable, schema]) => {
    const node = schema as unknown as Node;
    const type = typeOf(node);
    return { variable, type, default: defaultOf(variable, node, type), description: schema.description };
  });
}

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown table docs/operations.md holds between its config-table markers. */
export function renderConfigTable(): string {
  const lines = ['| variable | type / allowed values | default | meaning |', '|---|---|---|---|'];
  for (const row of configRows()) {
    const dflt = row.default === undefined ? 'unset' : row.default === '' ? 'empty' : `\`${row.default}\``;
    lines.push(`| \`${row.variable}\` | ${cell(row.type)} | ${cell(dflt)} | ${cell(row.description ?? '')} |`);
  }
  return lines.join('\n');
}

/** The text between the markers of `markdown`, or undefined when they are missing. */
export function configTableIn(markdown: string): string | undefined {
  const start = markdown.indexOf(CONFIG_TABLE_START);
  const end = markdown.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) return undefined;
  return markdown.slice(start + CONFIG_TABLE_START.length, end).trim();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const markdown = fs.readFileSync(operationsDoc, 'utf8');
  const start = markdown.indexOf(CONFIG_TABLE_START);
  const end = markdown.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) {
    console.error(`${operationsDoc} has no ${CONFIG_TABLE_START} … ${CONFIG_TABLE_END} section`);
    process.exit(1);
  }
  const table = renderConfigTable();
  fs.writeFileSync(operationsDoc, `${markdown.slice(0, start + CONFIG_TABLE_START.length)}\n${table}\n${markdown.slice(end)}`);
  console.log(`wrote ${configRows().length} variables into ${path.relative(process.cwd(), operationsDoc)}`);
}
