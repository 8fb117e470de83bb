/**
 * The custom search attributes on the Temporal server (core/domain/operator-view.ts
 * `SEARCH_ATTRIBUTES`): which ones a namespace lacks, registering them (the embedded dev server on
 * a data directory made before they existed), and the worker's refusal to start without them — a
 * workflow start that sets an unregistered attribute is refused by the server, so a worker that
 * ran anyway would fail every task it starts.
 */
import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { CLI_TYPE_NAMES, SEARCH_ATTRIBUTES, type AttributeType, type SearchAttributeName } from '../domain/operator-view.js';

const IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;
const INDEXED: Record<AttributeType, number> = { INT: IndexedValueType.INDEXED_VALUE_TYPE_INT, KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD };

/** An attribute the namespace lacks (`registeredAs` null) or has with another type. */
export interface AttributeProblem {
  name: SearchAttributeName;
  expected: AttributeType;
  /** The type the server has it with (`KEYWORD_LIST`, …); null when it is not registered. */
  registeredAs: string | null;
}

/** What a namespace lacks of `SEARCH_ATTRIBUTES`. @throws what the server answers when it cannot list them. */
export async function searchAttributeProblems(connection: Connection, namespace: string): Promise<AttributeProblem[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const problems: AttributeProblem[] = [];
  for (const [name, { type }] of Object.entries(SEARCH_ATTRIBUTES) as [SearchAttributeName, (typeof SEARCH_ATTRIBUTES)[SearchAttributeName]][]) {
    const registered = customAttributes?.[name];
    if (registered === INDEXED[type]) continue;
    const registeredAs = registered === undefined || registered === null ? null : (IndexedValueType[registered] ?? String(registered)).replace(/^INDEXED_VALUE_TYPE_/, '');
    problems.push({ name, expected: type, registeredAs });
  }
  return problems;
}

/**
 * The `temporal operator search-attribute create` commands that register `names`, one per
 * attribute (the CLI v1.5.1 registers only the first of several `--name` flags), joined with ` && `.
 */
export function createCommand(names: readonly SearchAttributeName[], target: { address: string; namespace: string }): string {
  return names.map((name) =>
    `temporal operator search-attribute create --address ${target.address} --namespace ${target.namespace} --name ${name} --type ${CLI_TYPE_NAMES[SEARCH_ATTRIBUTES[name].type]}`,
  ).join(' && ');
}

/** The dev server's `--search-attribute NAME=Type` arguments for every attribute. */
export function devServerSearchAttributeArgs(): string[] {
  return Object.values(SEARCH_ATTRIBUTES).flatMap(({ name, type }) => ['--search-attribute', `${name}=${CLI_TYPE_NAMES[type]}`]);
}

/**
 * Registers the attributes the namespace lacks (the CLI dev server registers its
 * `--search-attribute` flags only when it creates its database, not on one an older version made).
 * @throws Error naming an attribute registered with another type (it cannot be changed in place),
 *   or what the server answers.
 */
export async function registerSearchAttributes(connection: Connection, namespace: string): Promise<SearchAttributeName[]> {
  const problems = await searchAttributeProblems(connection, namespace);
  const clash = problems.filter((p) => p.registeredAs !== null);
  if (clash.length) throw new Error(`search attributes registered with another type: ${clash.map((p) => `${p.name} is ${p.registeredAs}, expected ${p.expected}`).join('; ')}`);
  if (!problems.length) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(problems.map((p) => [p.name, INDEXED[p.expected]])),
  });
  return problems.map((p) => p.name);
}

/**
 * Refuses a server whose namespace lacks the attributes (the worker calls it before it starts).
 * @throws Error naming each missing or mistyped attribute and the command that creates the missing ones.
 */
export async function assertSearchAttributes(connection: Connection, target: { address: string; namespace: string }): Promise<void> {
  const problems = await searchAttributeProblems(connection, target.namespace);
  if (!problems.length) return;
  const missing = problems.filter((p) => p.registeredAs === null);
  const clash = problems.filter((p) => p.registeredAs !== null);
  const lines = [
    `Temporal at ${target.address} (namespace ${target.namespace}) lacks the search attributes the workflows set, so the worker does not start.`,
    ...(missing.length ? [`Missing: ${missing.map((p) => `${p.name} (${CLI_TYPE_NAMES[p.expected]})`).join(', ')}. Create them with:`, `  ${createCommand(missing.map((p) => p.name), target)}`] : []),
    ...clash.map((p) => `${p.name} is registered as ${p.registeredAs}, expected ${CLI_TYPE_NAMES[p.expected]}: remove it (temporal operator search-attribute remove --name ${p.name}) and create it again.`),
  ];
  throw new Error(lines.join('\n'));
}
