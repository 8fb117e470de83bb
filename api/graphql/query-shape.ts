/**
 * A validation rule on the shape of a document, checked before anything runs and whatever the
 * variables (so yoga may cache it with the parse):
 *
 * - depth: at most `maxDepth` nested fields on any path, introspection included (an `ofType`
 *   chain does not count: it is linear, and GraphiQL's introspection query nests it 7 deep);
 * - introspection may not recurse: a field other than `ofType` cannot appear twice on one path
 *   (`__type { fields { type { fields … } } }` grows with every level; the standard introspection
 *   query never repeats one).
 *
 * Breadth and complexity depend on the arguments and are checked by @pothos/plugin-complexity.
 */
import { GraphQLError, Kind, type SelectionSetNode, type ValidationRule } from './graphql-js.js';

export function queryShapeRule(maxDepth: number): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      let reported = false;
      const report = (message: string, node: unknown) => {
        if (reported) return;
        reported = true;
        context.reportError(new GraphQLError(message, { nodes: node as never, extensions: { code: 40000 } }));
      };
      const visit = (selectionSet: SelectionSetNode, depth: number, introspection: string[], fragments: ReadonlySet<string>): void => {
        for (const selection of selectionSet.selections) {
          if (reported) return;
          if (selection.kind === Kind.FIELD) {
            const name = selection.name.value;
            const inIntrospection = introspection.length > 0 || name === '__schema' || name === '__type';
            const linear = inIntrospection && name === 'ofType';
            const fieldDepth = linear ? depth : depth + 1;
            if (fieldDepth > maxDepth) return report(`Bad Request. Query depth exceeds the maximum of ${maxDepth}.`, selection);
            if (inIntrospection && !linear && introspection.includes(name)) return report(`Bad Request. Introspection field "${name}" repeats within itself.`, selection);
            if (selection.selectionSet) visit(selection.selectionSet, fieldDepth, inIntrospection && !linear ? [...introspection, name] : introspection, fragments);
          } else if (selection.kind === Kind.INLINE_FRAGMENT) {
            visit(selection.selectionSet, depth, introspection, fragments);
          } else if (!fragments.has(selection.name.value)) {
            const fragment = context.getFragment(selection.name.value);
            if (fragment) visit(fragment.selectionSet, depth, introspection, new Set([...fragments, selection.name.value]));
          }
        }
      };
      visit(operation.selectionSet, 0, [], new Set());
    },
  });
}
