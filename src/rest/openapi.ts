/**
 * The OpenAPI document of the REST face, served at /api/openapi.json. SOFA's generator gives the
 * schemas (components from the GraphQL types, each argument's schema and each field's result);
 * this turns them from SOFA's internal routes into the legacy routes of the table: the tenant
 * prefix as server variables, path and query parameters, the body, and the envelope around
 * every answer. Every documented row of the route table is here, and nothing else.
 */
import { getNamedType, isInputObjectType, isNonNullType, isObjectType, type GraphQLInputType, type GraphQLSchema } from 'graphql';
import { dataTypes } from '../datatypes.js';
import { RETRY_AFTER_SECONDS } from '../db/unavailable.js';
import { tokenOperation } from './token.js';
import { bodyHoldsArgs, bracedPath, isSofaRoute, pathParams, routes as allRoutes, type Route, type SofaRoute } from './routes.js';
import { DATE_TIME_PATTERN, sofaPath } from './sofa-setup.js';
import { argumentOf, rootField } from './check-routes.js';
import { reachableSchemas } from './openapi-reachable.js';

type Schema = Record<string, unknown>;
type Operation = Record<string, unknown>;
type SofaDoc = { components?: { schemas?: Record<string, Schema> }; paths?: Record<string, Record<string, Operation>> };

/** The servers, under PUBLIC_URL when it is set (else relative to the document's own address). */
const tenantServer = (base: string) => ({
  url: `${base}/api/v1/{customeralias}/{databasealias}`,
  description: "A customer database's API",
  variables: {
    customeralias: { default: 'demo', description: 'The customer alias' },
    databasealias: { default: 'main', description: 'The database alias' },
  },
});
const rootServer = (base: string) => ({ url: `${base}/`, description: 'The service root' });

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The envelope's parts, as the spec describes them. */
const ENVELOPE_SCHEMAS: Record<string, Schema> = {
  Meta: {
    type: 'object',
    required: ['status', 'statusMsg', 'method', 'href'],
    properties: {
      status: { type: 'integer', description: 'The HTTP status (also sent as the response status unless suppress_response_codes=true).' },
      statusMsg: { type: 'string' },
      method: { type: 'string' },
      href: { type: 'string', description: 'The URL of this request.' },
    },
  },
  Error: {
    type: 'object',
    required: ['code', 'message', 'developerMessage'],
    properties: { code: { type: 'string', example: 'NOT_FOUND' }, message: { type: 'string' }, developerMessage: { type: 'string' } },
  },
  ErrorEnvelope: {
    type: 'object',
    required: ['meta'],
    properties: {
      meta: { allOf: [ref('Meta'), { type: 'object', required: ['errors'], properties: { errors: { type: 'array', items: ref('Error') } } }] },
    },
  },
  Pagination: {
    type: 'object',
    properties: {
      dataType: { type: 'string', enum: ['PagedData'] },
      href: { type: 'string' },
      first: { type: 'string' },
      last: { type: 'string' },
      next: { type: 'string', description: 'Empty on the last page.' },
      previous: { type: 'string', description: 'Empty on the first page.' },
      limit: { type: 'integer' },
      totalRecords: { type: 'integer' },
    },
  },
};

const ERRORS: Record<string, string> = {
  '400': 'The request is malformed (the message says how).',
  '401': 'No valid bearer token.',
  '403': 'The token belongs to another customer database, or the caller may not do this.',
  '404': 'No such record (or no such route).',
};

/** The database away (src/db/unavailable.ts): any operation. */
const UNAVAILABLE = 'The database is not available right now: nothing was done; try again after Retry-After seconds.';
/** ... or, for one that reads a body, the server's budget of bodies held at once full, or the caller's tenant's part of it (src/body-budget.ts). */
const UNAVAILABLE_WITH_BODY =
  "The database is not available right now, or the server is receiving too many request bodies at once (BODY_MEMORY_BYTES, or the caller's customer database's part of it, BODY_MEMORY_TENANT_BYTES): nothing was done; try again after Retry-After seconds.";

/** A body (a file part's too) that arrives too slowly (src/body-pace.ts). */
const TOO_SLOW = 'The body arrived more slowly than BODY_MIN_BYTES_PER_SECOND after BODY_GRACE_SECONDS: nothing was done, and the connection is closed.';

/** Every 503 says when to try again (src/plugins/use-retry-after.ts). */
const RETRY_AFTER = { 'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', example: RETRY_AFTER_SECONDS } } };

/** A body with a Content-Encoding is refused before it is read (src/plugins/use-content-encoding.ts). */
const COMPRESSED = 'The body was sent compressed (a Content-Encoding other than identity): send it uncompressed.';

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('ErrorEnvelope') } } });

/** A download's range and conditional requests (src/rest/conditional.ts; docs/decisions.md, "Files"), by its row's `file`. */
const requestHeader = (name: string, description: string) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } });
const textHeader = (description: string) => ({ description, schema: { type: 'string' } });
const RANGE_HEADERS = [
  requestHeader('Range', 'One range of bytes: `bytes=a-b`, `bytes=a-` or `bytes=-n` (the last n), answered 206. Several that do not join, another unit, or a malformed one: the whole file. HEAD takes none.'),
  requestHeader('If-Range', "The file's ETag: the Range holds only while the file is that one; else (a date too) the whole file."),
];
const IF_NONE_MATCH = requestHeader('If-None-Match', "Entity tags, or `*`: 304 when the file's is among them (compared weakly).");
const IF_MATCH = requestHeader('If-Match', "Entity tags, or `*`: 412 unless the file's is among them (compared strongly).");
const DOWNLOADS = {
  stored: {
    parameters: [
      ...RANGE_HEADERS,
      IF_NONE_MATCH,
      requestHeader('If-Modified-Since', 'An HTTP-date: 304 when the file is no newer. Ignored beside If-None-Match.'),
      IF_MATCH,
      requestHeader('If-Unmodified-Since', 'An HTTP-date: 412 when the file is newer. Ignored beside If-Match.'),
    ],
    validators: {
      ETag: textHeader("The file's strong entity tag: its file id, quoted. A file id's bytes, name and type never change."),
      'Last-Modified': textHeader("When the file was stored (a zip: when it was asked for); at files/{documentId} and files?q= the later of that and the document's last change."),
    },
    unchanged: 'If-None-Match or If-Modified-Since',
    changed: 'If-Match or If-Unmodified-Since',
  },
  content: {
    // Made or read on each request: no date to compare, so If-Modified-Since and If-Unmodified-Since are ignored.
    parameters: [...RANGE_HEADERS, IF_NONE_MATCH, IF_MATCH],
    validators: { ETag: textHeader('A strong entity tag of the bytes (their SHA-256, base64url), quoted: the same bytes, the same tag. No Last-Modified.') },
    unchanged: 'If-None-Match',
    changed: 'If-Match',
  },
};

const queryParameter = (name: string, description: string, schema: Schema = { type: 'string' }) => ({ name, in: 'query', required: false, description, schema });

const PROJECTION = [
  queryParameter('fields', 'Comma-separated field names to return (case-insensitive); a name holding a comma goes in brackets as in `q` (`[x,y]`, `]]` for a `]`); href and dataType always stay.'),
  queryParameter('expand', '`data` or `true` for every available field, or relation names to include.'),
];
const SUPPRESS = queryParameter('suppress_response_codes', '`true`: answer HTTP 200 with the real status in meta.status.', { type: 'boolean' });

/** SOFA's operation for a root field (its internal route is a POST with every argument in a JSON body). */
function sofaOperation(doc: SofaDoc, field: string): Operation {
  const op = doc.paths?.[sofaPath(field)]?.post;
  if (!op) throw new Error(`SOFA documented no operation for ${field}`);
  return op;
}

function argumentSchemas(op: Operation): { properties: Record<string, Schema>; required: string[] } {
  const body = (op.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.['application/json']?.schema;
  return { properties: (body?.properties ?? {}) as Record<string, Schema>, required: (body?.required ?? []) as string[] };
}

/** The schema of the records a field answers: its type, or its page type's `items`. */
function recordSchema(op: Operation, schemas: Record<string, Schema>): Schema | undefined {
  const result = (op.responses as Record<string, { content?: Record<string, { schema?: Schema }> }>)?.[Object.keys(op.responses as object)[0]]?.content?.['application/json']?.schema;
  const name = typeof result?.$ref === 'string' ? result.$ref.split('/').pop()! : undefined;
  const items = name ? (schemas[name]?.properties as Record<string, Schema> | undefined)?.items : undefined;
  if (items) return (items.items as Schema | undefined) ?? items;
  // A plain list (no page type): its elements are the records, which the envelope's `data` lists.
  if (result?.type === 'array') return (result.items as Schema | undefined) ?? {};
  return result;
}

function successSchema(row: SofaRoute, record: Schema | undefined): Schema {
  const properties: Record<string, Schema> = { meta: ref('Meta') };
  if (row.shape === 'list' || row.shape === 'one') {
    properties.data = { type: 'array', items: record ?? {}, ...(row.shape === 'one' ? { minItems: 1, maxItems: 1 } : {}) };
  } else if (row.shape === 'object') {
    properties.data = record ?? {};
  }
  if (row.paged) properties.pagination = ref('Pagination');
  return { type: 'object', required: Object.keys(properties), properties };
}

/** The envelope of the answer of rows that share an operation: `GET /meta` answers an object, with `expand=data` a paged list. */
function successOf(doc: SofaDoc, rows: SofaRoute[]): Schema {
  const shapes = rows.map((r) => JSON.stringify(successSchema(r, recordSchema(sofaOperation(doc, r.field), doc.components?.schemas ?? {}))));
  const distinct = [...new Set(shapes)].map((shape) => JSON.parse(shape) as Schema);
  return distinct.length === 1 ? distinct[0] : { anyOf: distinct };
}

/**
 * The root field's description and its arguments', from the schema: SOFA reads them from the
 * SDL's syntax tree, which lacks those the schema adds by convention (src/schema-conventions.ts).
 */
function descriptionsOf(schema: GraphQLSchema, field: string): { field?: string; args: Map<string, string> } {
  const f = rootField(schema, field);
  return { field: f?.description ?? undefined, args: new Map((f?.args ?? []).filter((a) => a.description).map((a) => [a.name, a.description!])) };
}

function sofaRowOperation(doc: SofaDoc, schema: GraphQLSchema, row: SofaRoute, alternatives: SofaRoute[]): Operation {
  const op = sofaOperation(doc, row.field);
  const schemas = doc.components?.schemas ?? {};
  const args = argumentSchemas(op);
  const described = descriptionsOf(schema, row.field);
  // `arg`: the argument a parameter fills (a path parameter's may differ from its name: the row's `params`).
  const parameter = (name: string, where: 'path' | 'query', required: boolean, s: Schema, arg = name, descriptions = described.args): Schema => {
    const description = descriptions.get(arg);
    return { name, in: where, required, ...(description ? { description } : {}), schema: asDateTimeInput(s) };
  };
  const inPathNames = pathParams(row.path);
  const pathArgs = inPathNames.map((name) => argumentOf(row, name));
  const parameters: Schema[] = inPathNames.map((name, i) => parameter(name, 'path', true, args.properties[pathArgs[i]] ?? { type: 'string' }, pathArgs[i]));
  // A row whose body holds its arguments (`bodyHoldsArgs`) takes them from the query string or the body, so neither documents one as required.
  const queryOrBody: Record<string, Schema> = {};
  for (const [name, s] of Object.entries(args.properties)) {
    if (name === row.body || pathArgs.includes(name)) continue;
    queryOrBody[name] = asDateTimeInput(s)!;
    parameters.push(parameter(name, 'query', args.required.includes(name) && !bodyHoldsArgs(row), s));
  }
  // The arguments of a row chosen by a query parameter (`relateToDocId`), optional: the plain row takes none of them.
  for (const other of alternatives) {
    const inPath = inPathNames.map((p) => argumentOf(other, p));
    const descriptions = descriptionsOf(schema, other.field).args;
    for (const [name, s] of Object.entries(argumentSchemas(sofaOperation(doc, other.field)).properties)) {
      if (!inPath.includes(name) && !parameters.some((p) => p.name === name)) parameters.push(parameter(name, 'query', false, s, name, descriptions));
    }
  }
  const record = recordSchema(op, schemas);
  if (row.shape !== 'none' && record) parameters.push(...PROJECTION);
  parameters.push(SUPPRESS);

  const [, name] = row.field.split('.');
  const notes = alternatives.map((a) => `With \`${a.when!.param}=${a.when!.values.join('|')}\`: the answer of \`${a.field}\`.`);
  const responses: Record<string, unknown> = {
    [String(row.status ?? 200)]: row.file
      ? {
          description: row.fileType ? 'The file' : "The file, with the Content-Type it was stored with (application/octet-stream when it has none)",
          content: { [row.fileType ?? '*/*']: { schema: { type: 'string', format: 'binary' } } },
        }
      : { description: 'Success', content: { 'application/json': { schema: successOf(doc, [row, ...alternatives]) } } },
  };
  for (const [status, description] of Object.entries(ERRORS)) responses[status] = errorResponse(description);
  if (row.file) {
    const download = DOWNLOADS[row.file];
    parameters.push(...download.parameters);
    const ok = responses['200'] as Record<string, unknown>;
    ok.headers = { ...download.validators, 'Accept-Ranges': textHeader('`bytes`.') };
    responses['206'] = { description: 'The bytes the Range names.', headers: { ...(ok.headers as object), 'Content-Range': textHeader('`bytes a-b/size`.') }, content: ok.content };
    responses['304'] = { description: `The file is the one ${download.unchanged} names: no body.`, headers: download.validators };
    responses['412'] = errorResponse(`The file is not the one ${download.changed} names.`);
    responses['416'] = { ...errorResponse('The Range names no byte of the file: all past its end, or a last byte before its first.'), headers: { 'Content-Range': textHeader('`bytes */size`.') } };
  }
  const readsBody = !!row.body || bodyHoldsArgs(row);
  if (readsBody) {
    responses['413'] = errorResponse(row.upload ? 'The file is larger than FILE_MAX_BYTES, or the other parts than MAX_BODY_BYTES.' : 'The body is larger than MAX_BODY_BYTES.');
    responses['415'] = errorResponse(COMPRESSED);
    responses['409'] = errorResponse('The change conflicts with the current state.');
    responses['408'] = errorResponse(TOO_SLOW);
  }
  responses['503'] = errorResponse(readsBody ? UNAVAILABLE_WITH_BODY : UNAVAILABLE);
  return {
    operationId: `${row.method.toLowerCase()}_${name}`,
    summary: row.field,
    ...(described.field || notes.length ? { description: [described.field, ...notes].filter(Boolean).join('\n\n') } : {}),
    tags: [tagOf(row.path)],
    parameters,
    ...(row.body ? { requestBody: requestBody(true, args.properties[row.body] ?? {}) } : {}),
    // Shown where it has a key to hold: a row whose path fills every argument reads a body only to refuse a malformed one.
    ...(bodyHoldsArgs(row) && Object.keys(queryOrBody).length ? { requestBody: requestBody(false, { type: 'object', properties: queryOrBody }) } : {}),
    responses,
    security: [{ bearer: [] }],
  };
}

/** The argument's description is the body's: beside the `$ref` SOFA gives, OpenAPI 3.0 ignores it. */
const requestBody = (required: boolean, { description, ...schema }: Schema) => ({
  required,
  ...(description ? { description } : {}),
  content: {
    'application/json': { schema },
    'application/x-www-form-urlencoded': { schema },
    // Each part a key of the body; a file part's content arrives as its text (src/rest/body.ts).
    'multipart/form-data': { schema },
  },
});

const tagOf = (path: string) => {
  const first = path.split('/').filter(Boolean)[0] ?? '';
  return first.charAt(0).toUpperCase() + first.slice(1);
};

/**
 * A record's `required` keys: those every default answer carries (href, dataType and the data
 * type's default fields, src/resources/), since `fields=` and the defaults decide what is sent;
 * a field only `expand=` or `fields=` brings is optional.
 */
/**
 * A DateTime the server takes (a body's key, a query parameter): any ISO 8601 date or date-time,
 * UTC when it names no zone (src/scalars.ts), not only the form it writes.
 */
function asDateTimeInput(s: Schema | undefined): Schema | undefined {
  if (!s || s.pattern !== DATE_TIME_PATTERN) return s;
  const { pattern: _, ...rest } = s;
  return { ...rest, description: [rest.description, 'An ISO 8601 date or date-time (`2024-01-31`, `2024-01-31T13:45:00`, a zone optional: UTC without one).'].filter(Boolean).join(' ') };
}

/**
 * GraphQL's nullable fields as `nullable` (OpenAPI 3.0): SOFA leaves them out, and a record's
 * field can be null (a pending zip's size, a document's reviewDate). Input types' DateTime keys
 * take what the scalar reads.
 */
function nullsAndInputs(schemas: Record<string, Schema>, schema: GraphQLSchema): void {
  for (const [name, s] of Object.entries(schemas)) {
    const type = schema.getType(name);
    const properties = s.properties as Record<string, Schema> | undefined;
    if (!properties || !(isObjectType(type) || isInputObjectType(type))) continue;
    for (const [fieldName, field] of Object.entries(type.getFields())) {
      let p = properties[fieldName];
      if (!p) continue;
      if (isInputObjectType(type) && getNamedType(field.type as GraphQLInputType)?.name === 'DateTime') p = properties[fieldName] = asDateTimeInput(p)!;
      // A list of input objects: its elements' type (SOFA writes a bare object).
      const named = getNamedType(field.type as GraphQLInputType);
      const items = p.items as Schema | undefined;
      if (isInputObjectType(named) && p.type === 'array' && items?.type === 'object' && !items.properties && schemas[named.name]) p.items = ref(named.name);
      // Only beside `type`: OpenAPI 3.0 ignores `nullable` without one (a $ref'd type is left as it is).
      if (!isNonNullType(field.type) && typeof p.type === 'string') p.nullable = true;
    }
  }
}

/** A field's description beside its `$ref` (SOFA's), which OpenAPI 3.0 ignores, stands beside an `allOf` of it instead. */
function describedRefs(schemas: Record<string, Schema>): void {
  for (const s of Object.values(schemas)) {
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    for (const [name, { $ref, ...rest }] of Object.entries(properties)) {
      if ($ref && Object.keys(rest).length) properties[name] = { ...rest, allOf: [{ $ref }] };
    }
  }
}

function requiredOfRecords(schemas: Record<string, Schema>): void {
  for (const [name, s] of Object.entries(schemas)) {
    const dt = dataTypes.byTypeName.get(name);
    if (!dt || !Array.isArray(s.required)) continue;
    const sent = new Set(['href', 'dataType', ...dt.defaultFields]);
    s.required = (s.required as string[]).filter((f) => sent.has(f));
  }
}

/** SOFA's component schemas, made to say what the server sends (a copy: SOFA's stay as they are). */
export function truthfulSchemas(schemas: Record<string, Schema>, schema: GraphQLSchema): Record<string, Schema> {
  const out = structuredClone(schemas);
  requiredOfRecords(out);
  nullsAndInputs(out, schema);
  describedRefs(out);
  // A type code or its name (src/domain/index-fields.ts); clients send the code as a JSON number.
  const fieldType = (out.IndexFieldInput?.properties as Record<string, Schema> | undefined)?.fieldType;
  if (fieldType) {
    const { type: _, nullable: __, ...rest } = fieldType;
    (out.IndexFieldInput.properties as Record<string, Schema>).fieldType = { ...rest, oneOf: [{ type: 'integer' }, { type: 'string' }] };
  }
  return out;
}

/** The operation with `Retry-After` on its 503, whoever wrote the answer's body (the token endpoint writes its own). */
function withRetryAfter(op: Operation): Operation {
  const responses = op.responses as Record<string, Record<string, unknown>>;
  return { ...op, responses: { ...responses, '503': { ...responses['503'], headers: RETRY_AFTER } } };
}

/**
 * The operation with an operationId no other has taken: a field served at two paths (`runScript`
 * at /scripts and /scripts/:id) names the later one's path parameters. Generated clients make a
 * function of each id, and two alike collide.
 */
function withUniqueId(op: Operation, path: string, taken: Set<string>): Operation {
  const params = pathParams(path);
  const id = taken.has(op.operationId as string) && params.length ? `${op.operationId}_by_${params.join('_')}` : (op.operationId as string);
  if (taken.has(id)) throw new Error(`Two operations of the OpenAPI document would share the operationId ${id}`);
  taken.add(id);
  return { ...op, operationId: id };
}

/** Rows the document describes: API routes, not the document and its reference page. */
export const documentedRows = (table: readonly Route[] = allRoutes) => table.filter((r) => isSofaRoute(r) || r.handler === 'token');

export function buildOpenApi(sofaDoc: SofaDoc, schema: GraphQLSchema, publicUrl = '', table: readonly Route[] = allRoutes): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const scopes = new Map<string, Set<'tenant' | 'root'>>();
  const operationIds = new Set<string>();
  for (const row of documentedRows(table)) {
    const key = bracedPath(row.path);
    const method = row.method.toLowerCase();
    const item = (paths[key] ??= {});
    const scope = row.scope === 'root' ? 'root' : 'tenant';
    (scopes.get(key) ?? scopes.set(key, new Set()).get(key)!).add(scope);
    if (item[method]) continue;
    if (!isSofaRoute(row)) {
      item[method] = withUniqueId(withRetryAfter(tokenOperation), row.path, operationIds);
      continue;
    }
    // Rows chosen by a query parameter share their path and method with a plain row: one operation.
    const same = table.filter((r): r is SofaRoute => isSofaRoute(r) && r.method === row.method && r.path === row.path);
    const main = same.find((r) => !r.when) ?? row;
    item[method] = withUniqueId(withRetryAfter(sofaRowOperation(sofaDoc, schema, main, same.filter((r) => r !== main))), row.path, operationIds);
  }
  for (const [key, s] of scopes) {
    // Paths served at the root (the token endpoint) name their servers; the rest use the tenant server.
    if (s.has('root')) paths[key].servers = [rootServer(publicUrl), ...(s.has('tenant') ? [tenantServer(publicUrl)] : [])];
  }
  // Only the schemas the paths reach: not Query and Mutation, nor what only GraphQL reads or takes.
  const schemas = reachableSchemas({ ...truthfulSchemas(sofaDoc.components?.schemas ?? {}, schema), ...ENVELOPE_SCHEMAS }, paths);
  return {
    openapi: '3.0.3',
    info: {
      title: 'quire REST API v1',
      version: '1.0.0',
      description:
        'The legacy REST API, generated from the GraphQL schema. Every answer is an envelope: `meta` with the status, ' +
        '`data` shaped per route, and `pagination` on paged lists; errors carry `meta.errors`. Get a token at `POST /oauth/token`.',
    },
    servers: [tenantServer(publicUrl)],
    tags: [...new Set(documentedRows(table).map((r) => tagOf(r.path)))].map((name) => ({ name })),
    paths,
    components: {
      schemas,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
    },
  };
}
