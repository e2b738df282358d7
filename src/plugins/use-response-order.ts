/**
 * /graphql's `data` in the order the operation asks for its fields (GraphQL spec, "Serialized Map
 * Ordering": as CollectFields finds them, a fragment's fields where the fragment is spread). Two
 * executors here order some answers otherwise: graphql-jit, which runs a document of one
 * operation, puts the fields of a fragment (spread or inline) after the fields written beside it
 * (`{ ...F id }` with `F` naming `name` answered `id` before `name`); Yoga's own executor, which
 * runs a document of several operations, sets each field as its value arrives (`{ a: me { id }
 * b: folder(id: ...) { id } c: me { name } }` answered a, c, b). Such documents' answers are put back
 * in order here, key by key; others (no fragment, one operation) come out in order already and
 * are left as they are. REST runs its own fixed documents (src/rest/execute.ts) and does not pass here.
 */
import { BREAK, getOperationAST, Kind, visit, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/** The response keys of the selection sets merged under one key, in order, and each key's own selection sets. */
interface Order {
  keys: string[];
  sub: Map<string, SelectionSetNode[]>;
}

type Fragments = ReadonlyMap<string, FragmentDefinitionNode>;

function collect(sets: readonly SelectionSetNode[], fragments: Fragments): Order {
  const keys: string[] = [];
  const sub = new Map<string, SelectionSetNode[]>();
  const visited = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        const key = s.alias?.value ?? s.name.value;
        let mine = sub.get(key);
        if (!mine) {
          sub.set(key, (mine = []));
          keys.push(key);
        }
        if (s.selectionSet) mine.push(s.selectionSet);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        walk(s.selectionSet);
      } else if (!visited.has(s.name.value)) {
        visited.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  for (const set of sets) walk(set);
  return { keys, sub };
}

/** `value` with every object's keys in the order `sets` asks for them (lists item by item). */
export function inQueryOrder(value: unknown, sets: readonly SelectionSetNode[], fragments: Fragments): unknown {
  // One order per merged selection: the items of a list share their parent key's sets.
  const orders = new WeakMap<readonly SelectionSetNode[], Order>();
  const put = (v: unknown, s: readonly SelectionSetNode[]): unknown => {
    if (Array.isArray(v)) return v.map((item) => put(item, s));
    if (v === null || typeof v !== 'object' || s.length === 0) return v;
    let order = orders.get(s);
    if (!order) orders.set(s, (order = collect(s, fragments)));
    const from = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of order.keys) if (Object.hasOwn(from, key)) out[key] = put(from[key], order.sub.get(key)!);
    // Nothing else is expected; kept rather than lost.
    for (const key of Object.keys(from)) if (!Object.hasOwn(out, key)) out[key] = from[key];
    return out;
  };
  return put(value, sets);
}

/** Whether an executor may answer `document` out of order: it spreads a fragment or holds several operations. */
function mayBeOutOfOrder(document: DocumentNode): boolean {
  if (document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).length > 1) return true;
  let fragment = false;
  visit(document, {
    enter(node) {
      if (node.kind !== Kind.FRAGMENT_DEFINITION && node.kind !== Kind.INLINE_FRAGMENT) return undefined;
      fragment = true;
      return BREAK;
    },
  });
  return fragment;
}

export function useResponseOrder(): Plugin {
  const checked = new WeakMap<DocumentNode, boolean>();
  return {
    onExecute({ args }) {
      const document = args.document as DocumentNode;
      let check = checked.get(document);
      if (check === undefined) checked.set(document, (check = mayBeOutOfOrder(document)));
      if (!check) return;
      return {
        onExecuteDone({ result, setResult }) {
          if (!('data' in result) || result.data == null) return;
          const operation = getOperationAST(document, args.operationName);
          if (!operation) return;
          const fragments: Fragments = new Map(
            document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((f) => [f.name.value, f] as const),
          );
          setResult({ ...result, data: inQueryOrder(result.data, [operation.selectionSet], fragments) as typeof result.data });
        },
      };
    },
  };
}
