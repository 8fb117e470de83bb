/**
 * The `after` / `before` arguments of the Prisma connections (`tasks`, `subscriptions`).
 * @pothos/plugin-prisma decodes them itself, before the field's resolver runs: a malformed cursor
 * fails with a plain error (masked as 50000) and a well-formed one hands its decoded value to the
 * database unchecked (a string holding U+0000, a task id that is not a UUID). Each such field
 * declares what its decoded cursor must be (`extensions.cursorValue`, the row id's own rule), and
 * `checkCursorArguments` wraps its resolver so any other cursor answers 40501 naming the argument.
 */
import { parsePrismaCursor } from '@pothos/plugin-prisma';
import type { GraphQLObjectType, GraphQLSchema } from './graphql-js.js';
import { DomainError } from '../../core/errors.js';

/** Field extension of a Prisma connection: true for the values its decoded cursor may hold. */
export interface CursorPolicy {
  cursorValue?: (value: unknown) => boolean;
}

/** True when `cursor` decodes (Pothos' own format) to a value `rule` accepts. */
function isCursorOf(cursor: unknown, rule: (value: unknown) => boolean): boolean {
  try {
    return rule(parsePrismaCursor(cursor));
  } catch {
    return false;
  }
}

/**
 * Wraps the resolver of every field whose extensions carry a `cursorValue` rule: its `after` and
 * `before`, when given, must decode to an accepted value, else AppError 40501 naming the argument.
 * @returns `schema`, changed in place.
 */
export function checkCursorArguments(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    const fields = (type as Partial<GraphQLObjectType>).getFields?.() ?? {};
    for (const field of Object.values(fields)) {
      const rule = (field.extensions as CursorPolicy | undefined)?.cursorValue;
      const resolve = 'resolve' in field ? field.resolve : undefined;
      if (!rule || !resolve) continue;
      field.resolve = (source, args: Record<string, unknown>, context, info) => {
        for (const name of ['after', 'before']) {
          const cursor = args[name];
          if (cursor !== undefined && cursor !== null && !isCursorOf(cursor, rule)) throw DomainError.invalidField(name);
        }
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
