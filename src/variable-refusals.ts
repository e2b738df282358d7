/**
 * graphql-jit, which runs both faces, names a value it refuses inside a variable by the field that
 * holds it, without the path: `Variable "$itemName" got invalid value {}; ...` for
 * `input.items[0].itemName`. Its refusals are placed here as graphql-js places its own:
 * `Variable "$input" got invalid value {} at "input.items[0].itemName"; ...`, the rest as jit wrote it,
 * and at the variable's definition in the document (`locations`), which jit's refusals lacked.
 */
import { coerceInputValue, getOperationAST, GraphQLError, isInputType, Kind, typeFromAST, visit, type ExecutionArgs, type ExecutionResult, type ValueNode } from 'graphql';
import { inspect } from 'graphql/jsutils/inspect.js';
import { printPathArray } from 'graphql/jsutils/printPathArray.js';

/** A refused value inside a variable: how jit's refusal of it begins, how it begins placed, and where it is in the variable. */
interface Place {
  jit: string;
  placed: string;
  variable: string;
  path: readonly (string | number)[];
  /** graphql-js's reason (what follows the placed prefix). */
  reason: string;
}

/**
 * The most refused values one request is told of, graphql-js's own `maxErrors`: past it, coercion
 * stops. graphql-jit has no such limit and words every refusal, which cost about 10 us and 1.4 KB
 * each, and placing them cost more: a list argument of 100,000 numbers where objects belong (a
 * 200 KB body) held the server for 15 s, and of 3,000,000 (6 MB) ran it out of memory.
 */
export const MAX_REFUSALS = 50;

type Args = Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues'>;

/**
 * The result with jit's refusals of its variables placed, each with `extensions.field`: the
 * argument or input field the refused value stands for (`input.items[0].itemName`, whatever the
 * variable's name), as our own refusals say it (src/field-paths.ts). A refusal of a variable itself
 * keeps its message.
 */
export function placedRefusals(args: Args, result: ExecutionResult): ExecutionResult {
  // jit answers refused variables with errors and no data, before anything runs.
  if (!result.errors?.length || 'data' in result) return result;
  const places = placesOf(args);
  const uses = usesOf(args);
  const definitions = definitionsOf(args);
  const errors = result.errors.map((e) => {
    // Placed already (tooManyRefusals).
    if (e.extensions?.field !== undefined) return e;
    // Both walk the values in the same order, so the first place that fits is this refusal's.
    const i = places.findIndex((p) => e.message.startsWith(p.jit));
    const [p] = i < 0 ? [] : places.splice(i, 1);
    const variable = p?.variable ?? VARIABLE.exec(e.message)?.[1];
    const use = variable === undefined ? undefined : uses.get(variable);
    const field = use === undefined ? {} : { field: use + printPathArray(p?.path ?? []) };
    const definition = e.nodes || e.positions || variable === undefined ? undefined : definitions.get(variable);
    if (!p && use === undefined && !definition) return e;
    const message = p ? p.placed + e.message.slice(p.jit.length) : e.message;
    const nodes = definition ? [definition] : e.nodes;
    return new GraphQLError(message, { nodes, source: e.source, positions: e.positions, originalError: e.originalError, extensions: { ...e.extensions, ...field } });
  });
  return { ...result, errors };
}

/**
 * The answer to a request whose variables hold more than MAX_REFUSALS refused values, found by
 * graphql-js's coercion, which stops at the one past it: the first MAX_REFUSALS refusals placed
 * (in graphql-js's words), then one that says the rest went unchecked. Undefined for any other
 * request, which graphql-jit then coerces and words as before. Run before jit (both faces).
 */
export function tooManyRefusals(args: Args): ExecutionResult | undefined {
  const places = placesOf(args, MAX_REFUSALS + 1);
  if (places.length <= MAX_REFUSALS) return undefined;
  const uses = usesOf(args);
  const definitions = definitionsOf(args);
  const errors = places.slice(0, MAX_REFUSALS).map((p) => {
    const use = uses.get(p.variable);
    const definition = definitions.get(p.variable);
    return new GraphQLError(p.placed + p.reason, { nodes: definition && [definition], extensions: use === undefined ? {} : { field: use + printPathArray(p.path) } });
  });
  errors.push(new GraphQLError(`More than ${MAX_REFUSALS} values of the request cannot be taken: the first ${MAX_REFUSALS} are listed above, and the values after them were not checked.`));
  return { errors };
}

/** The operation's variable definitions by name: graphql-js places a refused variable at its definition; jit's refusals have no place at all. */
const definitionsOf = ({ document, operationName }: Args) =>
  new Map((getOperationAST(document, operationName)?.variableDefinitions ?? []).map((d) => [d.variable.name.value, d]));

/** Thrown by `placesOf`'s coercion to stop it once it holds as many places as were asked for. */
class EnoughPlaces extends Error {}

/** The variable a refusal of one names first (`Variable "$input" got invalid value ...`). */
const VARIABLE = /^Variable "\$([_A-Za-z][_0-9A-Za-z]*)"/;

/**
 * What each variable of the operation stands for: the path of the argument, or of the input field
 * inside an argument's literal, it is given to (`input`; `input.name` for `input: {name: $n}`),
 * relative to its field. A variable given to several places (or to a directive) has none.
 */
function usesOf({ document, operationName }: Args): Map<string, string | undefined> {
  const operation = getOperationAST(document, operationName);
  const uses = new Map<string, string | undefined>();
  // `path` undefined: a place that is no input field (a directive's argument).
  const use = (value: ValueNode, path: string | undefined): void => {
    const inner = (step: string) => (path === undefined ? undefined : path + step);
    if (value.kind === Kind.VARIABLE) uses.set(value.name.value, uses.has(value.name.value) ? undefined : path);
    else if (value.kind === Kind.OBJECT) value.fields.forEach((f) => use(f.value, inner(`.${f.name.value}`)));
    else if (value.kind === Kind.LIST) value.values.forEach((v, i) => use(v, inner(`[${i}]`)));
  };
  visit(document, {
    OperationDefinition: (node) => (node === operation ? undefined : false),
    Field: (node) => node.arguments?.forEach((a) => use(a.value, a.name.value)),
    Directive: (node) => node.arguments?.forEach((a) => use(a.value, undefined)),
  });
  return uses;
}

/**
 * Where graphql-js's coercion refuses a value inside a variable, in its order: the first `max`
 * such places (the coercion stops there, however many more the values hold).
 */
function placesOf({ schema, document, operationName, variableValues }: Args, max = MAX_REFUSALS + 1): Place[] {
  const places: Place[] = [];
  try {
    for (const definition of getOperationAST(document, operationName)?.variableDefinitions ?? []) {
      const variable = definition.variable.name.value;
      const value = variableValues?.[variable];
      const type = typeFromAST(schema, definition.type);
      if (value === undefined || value === null || !type || !isInputType(type)) continue;
      coerceInputValue(value, type, (path, invalid, error) => {
        if (path.length === 0) return;
        if (places.length === max) throw new EnoughPlaces();
        // A null where a value is required: jit quotes the list or object that holds it.
        const quoted = invalid === null ? path.slice(0, -1) : path;
        // jit names the nearest field (the variable, for an element of a list it holds).
        const field = [...quoted].reverse().find((step) => typeof step === 'string') ?? variable;
        const held = quoted.reduce<unknown>((v, step) => (v as Record<string | number, unknown>)[step], value);
        places.push({
          jit: `Variable "$${field}" got invalid value ${inspect(held)}; `,
          placed: `Variable "$${variable}" got invalid value ${inspect(invalid)} at "${variable}${printPathArray(path)}"; `,
          variable,
          path,
          reason: error.message,
        });
      });
    }
  } catch (err) {
    if (!(err instanceof EnoughPlaces)) throw err;
  }
  return places;
}
