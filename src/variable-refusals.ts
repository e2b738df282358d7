/**
 * graphql-jit, which runs both faces, names a value it refuses inside a variable by the field that
 * holds it, without the path: `Variable "$itemName" got invalid value {}; ...` for
 * `input.items[0].itemName`. Its refusals are placed here as graphql-js places its own:
 * `Variable "$input" got invalid value {} at "input.items[0].itemName"; ...`, the rest as jit wrote it.
 */
import { coerceInputValue, getOperationAST, GraphQLError, isInputType, typeFromAST, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { inspect } from 'graphql/jsutils/inspect.js';
import { printPathArray } from 'graphql/jsutils/printPathArray.js';

/** A refused value inside a variable: how jit's refusal of it begins, and how it begins placed. */
interface Place {
  jit: string;
  placed: string;
}

type Args = Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues'>;

/** The result with jit's refusals of its variables placed; a refusal of a variable itself stays as it is. */
export function placedRefusals(args: Args, result: ExecutionResult): ExecutionResult {
  // jit answers refused variables with errors and no data, before anything runs.
  if (!result.errors?.length || 'data' in result) return result;
  const places = placesOf(args);
  if (places.length === 0) return result;
  const errors = result.errors.map((e) => {
    // Both walk the values in the same order, so the first place that fits is this refusal's.
    const i = places.findIndex((p) => e.message.startsWith(p.jit));
    if (i < 0) return e;
    const [p] = places.splice(i, 1);
    return new GraphQLError(p.placed + e.message.slice(p.jit.length), { nodes: e.nodes, source: e.source, positions: e.positions, originalError: e.originalError, extensions: e.extensions });
  });
  return { ...result, errors };
}

/** Where graphql-js's coercion refuses a value inside a variable, in its order. */
function placesOf({ schema, document, operationName, variableValues }: Args): Place[] {
  const places: Place[] = [];
  for (const definition of getOperationAST(document, operationName)?.variableDefinitions ?? []) {
    const variable = definition.variable.name.value;
    const value = variableValues?.[variable];
    const type = typeFromAST(schema, definition.type);
    if (value === undefined || value === null || !type || !isInputType(type)) continue;
    coerceInputValue(value, type, (path, invalid) => {
      if (path.length === 0) return;
      // A null where a value is required: jit quotes the list or object that holds it.
      const quoted = invalid === null ? path.slice(0, -1) : path;
      // jit names the nearest field (the variable, for an element of a list it holds).
      const field = [...quoted].reverse().find((step) => typeof step === 'string') ?? variable;
      const held = quoted.reduce<unknown>((v, step) => (v as Record<string | number, unknown>)[step], value);
      places.push({
        jit: `Variable "$${field}" got invalid value ${inspect(held)}; `,
        placed: `Variable "$${variable}" got invalid value ${inspect(invalid)} at "${variable}${printPathArray(path)}"; `,
      });
    });
  }
  return places;
}
