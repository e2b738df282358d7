/**
 * Runs one matched route row through SOFA: fits path, query and body onto the root field's
 * arguments and calls SOFA's router with a request for the field's internal route. On success
 * SOFA's Response is the answer: its execute hook turns the field's result into the envelope's
 * body, which SOFA serializes once (a 200-group page was stringified, parsed back and stringified
 * again). File routes read SOFA's answer back for the bytes it names (src/rest/downloads.ts). Every error goes the same
 * way, whether SOFA saw it or it was thrown before: `mapError` (logged with the request id when
 * unexpected), `outcomeOf`, then the error envelope (src/plugins/error-answer.ts for those thrown here).
 */
import {
  getNamedType,
  getNullableType,
  GraphQLInputObjectType,
  isInputObjectType,
  isObjectType,
  isScalarType,
  type ExecutionResult,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { Request, Response } from '@whatwg-node/fetch';
import { authenticate, buildContext, type AppContext, type ReceivedFile, type ReceivedUpload, type Services } from '../context.js';
import type { DataTypeInfo, DataTypes } from '../datatypes.js';
import { AppError, badRequest, shownValue } from '../errors.js';
import { isGuid } from '../ids.js';
import { codeScalarNamed, DATE_TIME_WORDS, isoInstant } from '../scalars.js';
import { effectiveLimit } from '../read/paging.js';
import { findAppError, mapError, outcomeOf, type EnvelopeError } from '../graphql-errors.js';
import { isMultipart, readBody, parseAnyBody, parseBody, parseMultipart, RepeatedKey, sentMoreThanOnce, withFiles } from './body.js';
import { errorEnvelope, jsonResponse, successBody, type Projection } from './envelope.js';
import { variantOf, type Variant } from './expand.js';
import { createRestExecute } from './execute.js';
import { forRestCaller } from './variable-errors.js';
import { sessionEnded, withSessionCheck } from '../auth/session.js';
import { asSent, fitInput } from './input.js';
import { queryParam, type Match } from './match.js';
import { parseFieldList } from '../query/field-list.js';
import { bodyHoldsArgs, bracedPath, isSofaRoute, pathParams, routes, type SofaRoute } from './routes.js';
import { argumentOf, rootField } from './check-routes.js';
import { createSofaRouter, SOFA_BASE, sofaFields, sofaPath } from './sofa-setup.js';
import { requestIdOf } from './request-id.js';
import { discardFiles } from '../domain/stored-files.js';
import { contentResponse, storedFileResponse, type FileContent, type StoredFileRecord } from './downloads.js';
import { receiveUpload, type Received } from './upload.js';
import { fileBytesOf } from './body-limit.js';
import { isPageType } from '../schema-conventions.js';

/** What SOFA writes for a successful call: the envelope's body, from the root field's result. */
type Reply = (result: unknown) => unknown;

/**
 * The server context of one SOFA call: the legacy request, its tenant path, the document variant,
 * the files received for the operation's context, the context already built for the request (an
 * upload's, whose sender was checked before its body was read and whose session is asked again after), and the reply (none on file
 * routes), under one key (the adapter copies the server context's own keys per call).
 */
interface RestCall {
  rest: { legacy: Request; tenant: Match['tenant']; variant: Variant; upload?: ReceivedUpload; attachments?: ReceivedFile[]; built?: AppContext; reply?: Reply };
}

/** A multipart body read before the arguments are fitted: its parts, and the files the operation takes from its context. */
interface ReadParts {
  parts: Record<string, unknown>;
  upload?: ReceivedUpload;
  attachments?: ReceivedFile[];
}

type RestContext = AppContext & { variant: Variant; reply?: Reply };

interface FieldInfo {
  field: GraphQLField<unknown, unknown>;
  recordType: string | undefined;
  /** Whether it answers a page (`{totalRecords, items}`), whose items are the records. */
  answersPage: boolean;
  /** Each argument with its named type's name, for `checkArg`. */
  args: { arg: GraphQLArgument; type: string }[];
  /** Whether the field filters by `q` (a `q` sent to one that does not is refused). */
  takesQ: boolean;
}

export interface RouteRunner {
  run(request: Request, url: URL, route: SofaRoute, m: Match): Promise<Response>;
  /** SOFA's OpenAPI document of its internal routes, for src/rest/openapi.ts. */
  sofaDocument: object;
}

export function createRouteRunner(services: Services, schema: GraphQLSchema, dataTypes: DataTypes): RouteRunner {
  const infoOf = new Map<string, FieldInfo>();
  for (const fieldName of sofaFields().keys()) {
    // Every row's field exists: checkRouteTable stops the start otherwise.
    const field = rootField(schema, fieldName)!;
    const args = field.args.map((arg) => ({ arg, type: getNamedType(arg.type).name }));
    infoOf.set(fieldName, { field, recordType: recordTypeOf(field), answersPage: isPageType(getNamedType(field.type)), args, takesQ: args.some(({ arg }) => arg.name === 'q') });
  }

  // The keys of each input object type, for refusals of a value that is not one (src/rest/variable-errors.ts).
  const inputShapes = new Map(Object.values(schema.getTypeMap()).filter(isInputObjectType).map((t) => [t.name, Object.keys(t.getFields())]));
  const argsTypes = new Map<SofaRoute, GraphQLInputObjectType>();
  const execute = withSessionCheck(createRestExecute());
  const sofa = createSofaRouter<RestCall, RestContext>(schema, {
    async context({ rest: { legacy, tenant, variant, upload, attachments, built, reply } }) {
      try {
        const ctx = Object.assign(built ?? (await buildContext(services, legacy, requestIdOf(legacy), tenant)), { variant, upload, attachments, reply });
        // Expanded relations are a page per record, uncounted before they run (unlike /graphql's).
        if (variant.relations.length) ctx.loaders.readAtMost(services.config.maxQueryRows);
        return ctx;
      } catch (e) {
        throw mapError(e, requestIdOf(legacy), services.log);
      }
    },
    execute(args) {
      const ctx = args.contextValue as RestContext;
      // Errors mapped as on /graphql, with this request's id; a success's one root field as the reply says.
      const finish = (r: ExecutionResult): ExecutionResult => {
        if (r.errors?.length) return { ...r, errors: r.errors.map((e) => mapError(e, ctx.requestId, services.log)) };
        const { reply } = ctx;
        if (!reply || !r.data) return r;
        try {
          return { ...r, data: Object.fromEntries(Object.entries(r.data).map(([k, v]) => [k, reply(v)])) };
        } catch (e) {
          // SOFA's errorHandler sees what is thrown here: mapped, as a 500 that quotes the request id.
          throw mapError(e, ctx.requestId, services.log);
        }
      };
      const result = execute({ ...args, schema, document: variantOf(schema, args.document, ctx.variant) });
      return result instanceof Promise ? result.then(finish) : finish(result);
    },
    errorHandler(errors) {
      const o = outcomeOf(errors);
      return jsonResponse(o.status, { errors: o.errors, fields: o.fields, meta: o.meta, headers: o.headers });
    },
  });

  const run: RouteRunner['run'] = async (request, url, route, m) => {
    if (!route.upload || !isMultipart(request.headers.get('content-type'))) {
      // Who sends it, before a byte of its body is read (an upload's receiver checks it as it starts)
      // and before its arguments are: an expired token, or another tenant's, is a 401 or 403 whatever else is wrong.
      const checked = authenticate(services, request, m.tenant);
      if (checked) await checked;
      return runWith(request, url, route, m, undefined).catch((err: unknown) => sessionFirst(request, m, err));
    }
    const received = await receiveUpload(services, request, m);
    // Refused, the file it was to record goes again.
    const discard = () => discardFiles(services, received.upload ? [received.upload.key] : [], requestIdOf(request));
    const answer = await runWith(request, url, route, m, received).catch(async (err: unknown) => {
      await discard();
      throw err;
    });
    if (answer.status >= 400) await discard();
    return answer;
  };

  /**
   * A refusal of what was sent that came before the operation ran (its arguments, its body), which
   * is what checks the session: a token whose session ended (a password change, a disabled account)
   * is told so first, a 401, as it is when the operation refuses (`q`) and on /graphql. One
   * statement, on a 400 only (a 413, 429 or 503, which guard the server's memory and load, ask
   * nothing); a check that cannot be made leaves the refusal as it was.
   */
  async function sessionFirst(request: Request, m: Match, err: unknown): Promise<never> {
    if (findAppError(err)?.status === 400) {
      const ctx = await buildContext(services, request, requestIdOf(request), m.tenant);
      if (!(await ctx.sessionAlive().catch(() => true))) throw sessionEnded();
    }
    throw err;
  }

  async function runWith(request: Request, url: URL, route: SofaRoute, m: Match, uploaded: Received | undefined): Promise<Response> {
    const info = infoOf.get(route.field)!;
    const page = { limit: intParam(url, 'limit'), offset: intParam(url, 'offset') };
    const received: ReadParts | undefined = uploaded ?? (await attachmentsOf(request, route));

    // The arguments, from the path, the query string and the body, as SOFA reads them.
    const args: Record<string, unknown> = {};
    const sentAs = new Map<string, string>();
    if (!info.takesQ && (queryParam(url.searchParams, 'q') ?? '') !== '') {
      throw badRequest(`${route.method} ${shownPath(route)} takes no q: it filters nothing, so leave the query parameter 'q' out.`);
    }
    const inBody = bodyHoldsArgs(route) && !emptyMultipart(request) ? await fittedBody(request, route, argsTypeOf(route, info), received, sentAs) : undefined;
    for (const { arg, type } of info.args) {
      if (arg.name === route.body) {
        args[arg.name] = await requestBody(request, route, arg, received, sentAs);
        continue;
      }
      const fromPath = fromPathOf(route, m.params, arg.name);
      const v = fromPath ? fromPath.value : queryParam(url.searchParams, arg.name);
      if (fromPath) samePathAndQuery(fromPath, arg.name, queryParam(url.searchParams, arg.name));
      if (v !== undefined && v !== '') args[arg.name] = checkArg(fromPath?.segment ?? arg.name, type, v, fromPath ? 'path segment' : 'query parameter');
      if (inBody?.[arg.name] === undefined || inBody[arg.name] === null || inBody[arg.name] === '') continue;
      const b = isScalarType(getNamedType(arg.type)) ? checkBodyArg(sentAs.get(arg.name) ?? arg.name, type, inBody[arg.name]) : inBody[arg.name];
      if (!(arg.name in args)) args[arg.name] = b;
      else if (!sameValue(args[arg.name], b)) {
        throw badRequest(`The query string and the request body give '${arg.name}' different values (${shownValue(args[arg.name])} and ${shownValue(b)}): send it in one of them, or the same in both.`);
      }
    }

    const dt = info.recordType ? dataTypes.byTypeName.get(info.recordType) : undefined;
    const projection = projectionOf(url, dt, route.allFields);
    const status = route.status ?? 200;
    const reply: Reply | undefined = route.file
      ? undefined
      : (result) =>
          successBody({
            request,
            status,
            shape: route.shape,
            result: result ?? null,
            dataTypes,
            recordType: info.recordType,
            answersPage: info.answersPage,
            projection,
            keyOrder: route.keyOrder,
            page: route.paged ? { limit: effectiveLimit(services.config, page.limit), offset: page.offset ?? 0 } : undefined,
          });
    const call: RestCall = {
      rest: {
        legacy: request,
        tenant: m.tenant,
        variant: { recordType: info.recordType, relations: projection.relations, dropTotal: !route.paged, dropDynamic: unshownDynamic(dt, projection) },
        upload: received?.upload,
        attachments: received?.attachments,
        built: uploaded?.context,
        reply,
      },
    };
    const answer = await sofa.handleRequest(
      new Request(`http://sofa${SOFA_BASE}${sofaPath(route.field)}`, { method: 'POST', body: JSON.stringify(args), headers: JSON_TYPE }),
      call,
    );
    if (!answer.ok) {
      // What errorHandler above made of SOFA's errors.
      const { errors, fields, meta, headers } = (await answer.json()) as { errors: EnvelopeError[]; fields: (string | null)[]; meta: Record<string, unknown>; headers: Record<string, string> };
      return errorEnvelope(request, answer.status, errors.map((e, i) => whereMissing(inSentSpelling(forRestCaller(e, inputShapes, args), sentAs, fields[i] ?? undefined), route, url)), meta, headers);
    }
    if (reply) {
      // SOFA answers with its first row's status (src/rest/sofa-setup.ts); a row of the same field may differ.
      const out = answer.status === status ? answer : new Response(await answer.text(), { status, headers: answer.headers });
      out.headers.set('x-request-id', requestIdOf(request));
      return out;
    }
    const json = (await answer.json()) as unknown;
    if (route.file === 'content') return contentResponse(request, json as FileContent);
    return storedFileResponse(services, request, m, json as StoredFileRecord);
  }
  return { run, sofaDocument: sofa.openAPIDocument };

  /** The arguments the path does not fill of a row whose body holds them (`bodyHoldsArgs`), as an input type for `fitInput` (never part of the schema). */
  function argsTypeOf(route: SofaRoute, info: FieldInfo): GraphQLInputObjectType {
    let type = argsTypes.get(route);
    if (!type) {
      const inPath = new Set(pathParams(route.path).map((p) => argumentOf(route, p)));
      const fields = Object.fromEntries(info.args.filter(({ arg }) => !inPath.has(arg.name)).map(({ arg }) => [arg.name, { type: arg.type }]));
      type = new GraphQLInputObjectType({ name: `${route.field.split('.')[1]}Arguments`, fields });
      argsTypes.set(route, type);
    }
    return type;
  }

  /** A multipart body's parts: files beside the text parts where the route takes them (an e-mail's attachments); the text parts are held to MAX_BODY_BYTES. */
  function multipartOf(request: Request, route: SofaRoute) {
    const { maxBodyBytes } = services.config;
    return parseMultipart(request, maxBodyBytes + fileBytesOf(route, services.config), services.bodies, maxBodyBytes);
  }

  /** A multipart body's parts as one object, the file parts under `fileUpload`. */
  async function partsOf(request: Request, route: SofaRoute) {
    const { texts, files } = await multipartOf(request, route);
    return withFiles(texts, files);
  }

  /**
   * A multipart body given to a JSON argument (a form's values, a script's input): text parts
   * only. A file part there is a 400 naming it as sent; under `fileUpload`, where the file routes
   * take it, it was refused as a form field the template lacks.
   */
  async function textPartsOf(request: Request, route: SofaRoute, type: GraphQLInputType) {
    const { texts, files } = await multipartOf(request, route);
    if (files.length > 0 && isScalarType(type) && type.name === 'JSON') {
      const [{ part, name }] = files;
      throw badRequest(`${route.method} ${shownPath(route)} takes text parts only: the part '${part.slice(0, 64)}' is a file ('${name.slice(0, 64)}'). Send its value as a text part, without a filename.`);
    }
    return withFiles(texts, files);
  }

  /**
   * On a row marked `attachments`, a multipart body read before its arguments are fitted: its file
   * parts go to the operation as they are (`AppContext.attachments`), and the input names each
   * without its bytes, as an upload's does (src/rest/upload.ts): as base64 in the arguments they
   * were held about five times over (docs/decisions.md, E-mail).
   */
  async function attachmentsOf(request: Request, route: SofaRoute): Promise<ReadParts | undefined> {
    if (!route.attachments || !isMultipart(request.headers.get('content-type'))) return undefined;
    const parts = await multipartOf(request, route);
    // A browser form's file input left empty sends a part with no file name and no bytes: no file chosen, not a nameless attachment.
    const files = parts.files.filter((f) => f.name || f.bytes.length > 0);
    return { parts: withFiles(parts.texts, files.map((f) => ({ name: f.name, type: f.type, base64: '' }))), attachments: files };
  }

  /** The request body (or the parts already read), fitted onto an input type. */
  async function fittedBody(request: Request, route: SofaRoute, type: GraphQLInputObjectType, received: ReadParts | undefined, sentAs: Map<string, string>) {
    const contentType = request.headers.get('content-type');
    if (isMultipart(contentType)) return fitInput(type, received?.parts ?? (await partsOf(request, route)), sentAs);
    // A file sent as the body itself: what the route takes, not what JSON's parser found in it.
    const notJson = route.upload && !isJsonOrForm(contentType) ? () => notMultipart(route, contentType) : undefined;
    return fitInput(type, parseBody(await readBody(request, services.config.maxBodyBytes, services.bodies), contentType, notJson), sentAs);
  }

  /** The request body (or the parts already read), fitted onto the argument's input type. */
  async function requestBody(request: Request, route: SofaRoute, arg: GraphQLArgument, received: ReadParts | undefined, sentAs: Map<string, string>) {
    const contentType = request.headers.get('content-type');
    const type = getNullableType(arg.type);
    if (isInputObjectType(type)) return fittedBody(request, route, type, received, sentAs);
    if (isMultipart(contentType)) {
      const parts = received?.parts ?? (await textPartsOf(request, route, type));
      return route.anyJson ? parts : oneValueEach(parts);
    }
    const text = await readBody(request, services.config.maxBodyBytes, services.bodies);
    if (!isScalarType(type) || type.name !== 'JSON') return parseBody(text, contentType);
    // An empty body leaves a JSON argument out, as GraphQL would, so the field's own default applies
    // (the Node client posts a form with no body when it has no values). A body sent is an object,
    // as everywhere (a form's values: a raw `null` made a blank form), unless the row takes any JSON
    // (a script's input is often an array).
    if (text.trim() === '') return undefined;
    return route.anyJson ? parseAnyBody(text, contentType) : oneValueEach(parseBody(text, contentType));
  }

  function projectionOf(url: URL, dt: ReturnType<DataTypes['get']>, allFields = false): Projection {
    const list = (name: string) =>
      (queryParam(url.searchParams, name) ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
    const fields = parseFieldList(queryParam(url.searchParams, 'fields') ?? '').map((f) => f.toLowerCase());
    const expand = list('expand');
    const all = allFields || expand.includes('data') || expand.includes('true');
    // Each relation once: the variant documents are cached by this list (src/rest/expand.ts), and
    // `expand=users,users,…` in ever new lengths would otherwise grow that cache without end.
    const relations = dt ? [...new Set(expand.map((e) => dt.relations.get(e)).filter((r): r is string => !!r))] : [];
    return { fields: fields.length ? new Set(fields) : undefined, all, relations };
  }
}

const JSON_TYPE = { 'content-type': 'application/json' };

/** The path segment that fills an argument, through the row's renamed parameters: its name in the path (`token` for `id`) and its value. */
function fromPathOf(route: SofaRoute, params: Record<string, string>, arg: string): { segment: string; value: string } | undefined {
  for (const [segment, value] of Object.entries(params)) if (argumentOf(route, segment) === arg) return { segment, value };
  return undefined;
}

/**
 * An argument the path fills and the query string names too (`scripts/{id}?id=`): the same value
 * (any case) or none, else a 400; the query's was ignored without a word, so a caller who meant it
 * got another record's answer.
 */
function samePathAndQuery(fromPath: { segment: string; value: string }, arg: string, inQuery: string | undefined): void {
  if (inQuery === undefined || inQuery.trim() === '' || inQuery.trim().toLowerCase() === fromPath.value.toLowerCase()) return;
  throw badRequest(`The path gives '${fromPath.segment}' as '${fromPath.value.slice(0, 64)}' and the query string gives '${arg}' as '${inQuery.slice(0, 64)}': send it in the path only.`);
}

/** A row's path as the clients' documentation writes it: `sites/{id}`. */
const shownPath = (route: SofaRoute) => bracedPath(route.path).slice(1);

const isJsonOrForm = (contentType: string | null) => /^\s*application\/(json|x-www-form-urlencoded)\b/i.test(contentType ?? '');

/** An upload route's refusal of a body that is neither multipart nor JSON nor a form (a file sent raw). */
const notMultipart = (route: SofaRoute, contentType: string | null) =>
  new AppError(
    'UNSUPPORTED_MEDIA_TYPE',
    `${route.method} ${shownPath(route)} takes a multipart/form-data body, its file as the part named 'fileUpload' beside the other fields as text parts; this body (${(contentType ?? 'no Content-Type').slice(0, 64)}) is neither that nor JSON.`,
  );

/** A multipart body declared empty: no parts, as an empty JSON body is no keys (busboy would call it cut short). */
const emptyMultipart = (request: Request) => isMultipart(request.headers.get('content-type')) && request.headers.get('content-length') === '0';

/**
 * The dynamic field (form values) when the answer shows none of its keys: no `expand=data` and no
 * `fields=` beyond the declared ones. Its column is then not read (a row's values may be megabytes).
 */
function unshownDynamic(dt: DataTypeInfo | undefined, p: Projection): string | undefined {
  if (!dt?.dynamic || p.all) return undefined;
  if (p.fields && [...p.fields].some((f) => !dt.availableFields.some((a) => a.toLowerCase() === f))) return undefined;
  return dt.dynamic;
}

/**
 * A body key that fills a scalar argument, checked as a query parameter is (`checkArg`): SOFA hands
 * top-level values to the scalar's `serialize`, which takes any value for a Boolean (`"maybe"` is
 * false). Values `fitInput` fitted (a form's `"true"`, a JSON number for text) are checked as text.
 */
function checkBodyArg(name: string, type: string, value: unknown): unknown {
  // Shown as sent: a JSON number or boolean is no text in quotes.
  if (typeof value === 'boolean' || typeof value === 'number') return checkArg(name, type, String(value), 'field', shownValue(value));
  if (typeof value === 'string') return checkArg(name, type, value, 'field');
  throw badRequest(`The field '${name.slice(0, 64)}' takes one value, not a list or an object, got ${shownValue(value)}.`);
}

/** One argument given in the query string and the body: the same value, once each is fitted (`true` and `"True"` agree). */
const sameValue = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

/**
 * A refusal of a body field names it as the caller spelled it (`Items[0].ItemName` for
 * `items[0].itemName`): the value the error says it refuses (`field`), else the one GraphQL's
 * worded refusal names (`The field 'items[0].itemName' ...`).
 */
function inSentSpelling(e: EnvelopeError, sentAs: Map<string, string>, field?: string): EnvelopeError {
  const named = field ?? /^The (?:mandatory )?field '([^']+)'/.exec(e.message)?.[1];
  return named ? { ...e, message: e.message.replace(`'${named}'`, `'${asSent(named, sentAs)}'`) } : e;
}

/**
 * A JSON body argument that is not `anyJson` takes one value per key (a form's values): a form or
 * multipart key sent more than once is a 400 saying so, not a list refused later as "an object or array".
 */
function oneValueEach(body: unknown): unknown {
  for (const [k, v] of Object.entries(body ?? {})) {
    if (v instanceof RepeatedKey) throw badRequest(sentMoreThanOnce({ key: k.slice(0, 64), times: v.length }));
  }
  return body;
}

/**
 * The parameter of the row a row stands in for when it is absent or blank: `relateForm` runs when
 * `relateToDocId`, which chooses `relateFormByDocId`, has no value.
 */
const standsInFor = new Map<SofaRoute, string>();
const sofaRows = routes.filter(isSofaRoute);
for (const r of sofaRows) {
  const other = sofaRows.find((o) => o.method === r.method && o.path === r.path && o.when?.values.includes('*'));
  if (!r.when && other) standsInFor.set(r, other.when!.param);
}

/**
 * A GraphQL variable missing, other than the body's, is a query parameter (the path's are there when
 * a row matches): say so, and name the other row's parameter when the caller could send that one
 * instead (or sent it blank). A resolver's own "mandatory field" refusals are about body fields.
 */
function whereMissing(e: EnvelopeError, route: SofaRoute, url: URL): EnvelopeError {
  const name = /^The mandatory field '([^']+)' is missing\.$/.exec(e.message)?.[1];
  const variable = e.developerMessage?.startsWith(`Variable "$${name}"`);
  if (!name || !variable || name === route.body) return e;
  if (bodyHoldsArgs(route) && !standsInFor.has(route)) return { ...e, message: `The mandatory parameter '${name}' is missing: send it in the query string or the request body.` };
  const other = standsInFor.get(route);
  if (!other) return { ...e, message: `The mandatory query parameter '${name}' is missing.` };
  const message = queryParam(url.searchParams, other) === undefined
    ? `The mandatory query parameter '${name}' (or '${other}') is missing.`
    : `The query parameter '${other}' was sent without a value: give it one, or send '${name}' instead.`;
  return { ...e, message };
}

/** The data type of a root field's records: its type, or its page's `items` type. */
function recordTypeOf(field: GraphQLField<unknown, unknown>): string | undefined {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return undefined;
  const record = isPageType(named) ? getNamedType(named.getFields().items.type) : named;
  return record.name;
}

/** `limit`/`offset` from the query string, on every route: a value that is not a whole number of 0 or more is a 400. */
function intParam(url: URL, name: string): number | undefined {
  const v = queryParam(url.searchParams, name);
  if (v === undefined || v.trim() === '') return undefined;
  if (/^\d{10,}$/.test(v.trim())) throw badRequest(`The query parameter '${name}' must be at most 999999999, got '${v.slice(0, 64)}'.`);
  if (!/^\d{1,9}$/.test(v.trim())) throw badRequest(`The query parameter '${name}' must be a whole number of 0 or more, got '${v.slice(0, 64)}'.`);
  return Number(v);
}

/** Clear 400s for arguments SOFA would otherwise reject with a terse scalar message; booleans as forms write them. */
function checkArg(name: string, type: string, value: string, where: string, shown = shownValue(value)): string | boolean {
  if (type === 'UUID' && !isGuid(value as unknown)) throw badRequest(`The ${where} '${name}' must be a GUID, got ${shown}.`);
  if (type === 'Int' && !/^-?\d{1,9}$/.test(value.trim())) throw badRequest(`The ${where} '${name}' must be a whole number, got ${shown}.`);
  // SOFA hands query values to the scalar's serialize, whose own refusal names no parameter.
  if (type === 'DateTime' && !isoInstant(value)) throw badRequest(`The ${where} '${name}' must be ${DATE_TIME_WORDS}, got ${shown}.`);
  const code = codeScalarNamed(type);
  if (code && !code.takes(value)) throw badRequest(`The ${where} '${name}' must be ${code.words}, got ${shown}.`);
  if (type === 'Boolean') {
    if (/^(true|1)$/i.test(value.trim())) return true;
    if (/^(false|0)$/i.test(value.trim())) return false;
    throw badRequest(`The ${where} '${name}' must be true or false, got ${shown}.`);
  }
  return value;
}
