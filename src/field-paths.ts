/**
 * `extensions.field` of a /graphql refusal: which argument or input field it refuses, as the schema
 * names it (`input.name`, `input.items[0].itemName`, `id`), so that a form can show the message
 * beside that input. A refusal names its value as its message does (`AppError.field`: a key of the
 * field's `input`, or an argument); it is placed here, once, against the root field's arguments.
 */
import { getNullableType, isInputObjectType, isListType, isScalarType, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { findAppError } from './graphql-errors.js';

type Step = string | number;
/** An argument of a field: its name and type. */
type Arg = { name: string; type: GraphQLInputType };

/** `items[0].itemName` as its steps: `['items', 0, 'itemName']`; undefined for what is no path. */
function stepsOf(name: string): Step[] | undefined {
  const steps: Step[] = [];
  for (const m of name.matchAll(/([_A-Za-z][_0-9A-Za-z]*)|\[(\d+)\]|(\.)|(.)/g)) {
    if (m[4] !== undefined) return undefined;
    if (m[1] !== undefined) steps.push(m[1]);
    else if (m[2] !== undefined) steps.push(Number(m[2]));
  }
  return typeof steps[0] === 'string' ? steps : undefined;
}

/** A name among `names`: as spelled, else its only match in another case (the .NET spellings: `userid` for `userId`). */
function named(names: readonly string[], step: Step): string | undefined {
  if (typeof step !== 'string') return undefined;
  if (names.includes(step)) return step;
  const alike = names.filter((n) => n.toLowerCase() === step.toLowerCase());
  return alike.length === 1 ? alike[0] : undefined;
}

/**
 * `steps` as the schema spells them, walked from the field's arguments through its input types,
 * or undefined where one names nothing there. Below a JSON value the keys are the client's own.
 */
function walked(args: readonly Arg[], steps: Step[]): string | undefined {
  const arg = args.find((a) => a.name === named(args.map((x) => x.name), steps[0]));
  if (!arg) return undefined;
  let path = arg.name;
  let type: GraphQLInputType = arg.type;
  for (const step of steps.slice(1)) {
    const t = getNullableType(type);
    if (isScalarType(t)) {
      path += typeof step === 'number' ? `[${step}]` : `.${step}`;
      continue;
    }
    if (typeof step === 'number') {
      if (!isListType(t)) return undefined;
      path += `[${step}]`;
      type = t.ofType;
      continue;
    }
    if (!isInputObjectType(t)) return undefined;
    const fields = t.getFields();
    const name = named(Object.keys(fields), step);
    if (!name) return undefined;
    path += `.${name}`;
    type = fields[name].type;
  }
  return path;
}

/**
 * Where `name` is among a field's arguments: an argument sent under that name (`siteId`), else a
 * key of the `input` it was sent (`input.siteId`), else an argument not sent (a missing `id`).
 */
function fieldPath(args: readonly Arg[], values: Record<string, unknown>, name: string): string | undefined {
  const steps = stepsOf(name);
  if (!steps) return undefined;
  const inInput = () => (values.input == null ? undefined : walked(args, ['input', ...steps]));
  const asArg = () => walked(args, steps);
  return values[steps[0]] != null ? (asArg() ?? inInput()) : (inInput() ?? asArg());
}

/** Every root field with arguments, its refusal's `field` placed (`AppError.fieldPath`) as it leaves. */
export function withFieldPaths(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.ROOT_FIELD]: (config) => {
      const resolve = config.resolve;
      if (!resolve || !config.args || Object.keys(config.args).length === 0) return config;
      const args = Object.entries(config.args).map(([name, a]) => ({ name, type: a.type }));
      const place = (err: unknown, values: Record<string, unknown>): never => {
        const app = findAppError(err);
        if (app?.field !== undefined && app.fieldPath === undefined) app.fieldPath = fieldPath(args, values, app.field);
        throw err;
      };
      return {
        ...config,
        resolve: (source, values, ctx, info) => {
          try {
            const result = resolve(source, values, ctx, info);
            return result instanceof Promise ? result.catch((err: unknown) => place(err, values)) : result;
          } catch (err) {
            return place(err, values);
          }
        },
      };
    },
  });
}
