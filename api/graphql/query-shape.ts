/**
 * Validation rules of ours on the shape of a document, for what graphql-armor does not check
 * (query-limits.ts assembles them with armor's). Both are linear in the document's size: each
 * fragment is walked once, whatever the number of times it is spread, so chained fragments that
 * spread the next one twice cost what they weigh, not 2^chain.
 *
 * - `fragmentCountRule`: at most `max` fragment definitions in a document.
 * - `introspectionRecursionRule`: inside `__schema` / `__type`, a field with a selection other than
 *   `ofType` cannot appear twice on one path (`__type { fields { type { fields … } } }` grows with
 *   every level; the standard introspection query never repeats one). Armor's depth rule does not
 *   look inside `__schema`, so this is what bounds the introspection answer.
 *
 * Both are checked before anything runs and whatever the variables (yoga caches them with the parse).
 */
import { Kind, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext, type ValidationRule } from './graphql-js.js';
import { badRequest } from './errors.js';

/** At most `max` fragment definitions per document → 40000 "Bad Request. Fragment limit of <max> exceeded, found <n>." */
export function fragmentCountRule(max: number): ValidationRule {
  return (context) => ({
    Document(document) {
      const count = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION).length;
      if (count > max) context.reportError(badRequest(`Bad Request. Fragment limit of ${max} exceeded, found ${count}.`, 400, false));
    },
  });
}

/** What a selection set holds inside introspection: the names of its fields with a selection (transitively), and the first repeat. */
interface Summary {
  names: ReadonlySet<string>;
  repeated: string | null;
}

const EMPTY: Summary = { names: new Set(), repeated: null };

/** True for the fields that start introspection on the query type. */
const startsIntrospection = (name: string) => name === '__schema' || name === '__type';

/**
 * Walks selection sets bottom-up: a field repeats when its own name is among the names below it.
 * A fragment's summary is computed once per document and per context (inside introspection or not).
 */
class IntrospectionWalk {
  private readonly fragments = new Map<string, Summary | 'active'>();

  constructor(private readonly context: ValidationContext) {}

  selectionSet(selectionSet: SelectionSetNode, inIntrospection: boolean): Summary {
    let names: Set<string> | undefined;
    let repeated: string | null = null;
    const add = (summary: Summary) => {
      repeated ??= summary.repeated;
      if (summary.names.size === 0) return;
      names ??= new Set();
      for (const name of summary.names) names.add(name);
    };
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (!selection.selectionSet) continue;
        const name = selection.name.value;
        const introspection = inIntrospection || startsIntrospection(name);
        const below = this.selectionSet(selection.selectionSet, introspection);
        add(below);
        if (!introspection || name === 'ofType') continue;
        if (below.names.has(name)) repeated ??= name;
        add({ names: new Set([name]), repeated: null });
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        add(this.selectionSet(selection.selectionSet, inIntrospection));
      } else {
        const fragment = this.context.getFragment(selection.name.value);
        if (fragment) add(this.fragment(fragment, inIntrospection));
      }
    }
    return names || repeated ? { names: names ?? new Set(), repeated } : EMPTY;
  }

  private fragment(fragment: FragmentDefinitionNode, inIntrospection: boolean): Summary {
    const introspection = inIntrospection || fragment.typeCondition.name.value.startsWith('__');
    const key = `${introspection ? 1 : 0}:${fragment.name.value}`;
    const known = this.fragments.get(key);
    // A cycle is NoFragmentCyclesRule's error; it adds nothing here.
    if (known === 'active') return EMPTY;
    if (known) return known;
    this.fragments.set(key, 'active');
    const summary = this.selectionSet(fragment.selectionSet, introspection);
    this.fragments.set(key, summary);
    return summary;
  }
}

/** Inside introspection, no field but `ofType` may repeat within itself → 40000 naming the field. */
export function introspectionRecursionRule(): ValidationRule {
  return (context) => ({
    OperationDefinition(operation) {
      const { repeated } = new IntrospectionWalk(context).selectionSet(operation.selectionSet, false);
      if (repeated) context.reportError(badRequest(`Bad Request. Introspection field "${repeated}" repeats within itself.`, 400, false));
    },
  });
}
