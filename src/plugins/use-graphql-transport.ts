/**
 * /graphql's refusals as GraphQL error bodies with a 4xx, where Yoga would answer an empty 415 or
 * a 500: a body in a media type Yoga does not parse (text/plain), and an operation type the schema
 * has none of (a `subscription`, which the compiled executor would otherwise throw on), and a GET
 * whose `variables` or `extensions` are not JSON, or that sends a parameter twice with different
 * values; and a multipart request whose `operations` or `map` is missing or malformed, which Yoga
 * answered with no code (a 200), or a 500. A body is
 * UTF-8 (a declared charset otherwise is a 415), a byte order mark before its JSON is taken, and
 * an empty one or one without a Content-Type is refused saying so; a multipart one's Content-Type
 * is refused as REST's is (`multipartReader`), before the body takes from the budget.
 */
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { GraphQLError, type ValidationRule } from 'graphql';
import { AppError, badRequest } from '../errors.js';
import { findAppError, throwAsGraphQL } from '../graphql-errors.js';
import type { Logger } from '../log.js';
import { holdsMoreValues, isMultipart, manyValues, multipartReader } from '../rest/body.js';
import { refuseCharset } from '../rest/body-charset.js';
import { oneValue } from '../rest/match.js';
import { errorAnswer } from './error-answer.js';

const knownOperationType: ValidationRule = (context) => ({
  OperationDefinition(node) {
    if (context.getSchema().getRootType(node.operation)) return;
    const message = `This service has no ${node.operation} operations: send a query or a mutation.`;
    // A 400 whatever the Accept header (spec: false): Yoga answers other validation errors to application/json with a 200.
    context.reportError(new GraphQLError(message, { nodes: node, extensions: { code: 'BAD_REQUEST', http: { status: 400, spec: false } } }));
  },
});

export function useGraphQLTransport(log: Logger): Plugin {
  return {
    onRequestParse({ request, url, requestParser, setRequestParser, endResponse }) {
      // Yoga's own 405 says BAD_REQUEST: this one has the code every other 405 has.
      if (request.method !== 'GET' && request.method !== 'POST') {
        const answer = errorAnswer(request, url, new AppError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on /graphql; use GET or POST.`), log);
        answer.headers.set('allow', 'GET, POST');
        return endResponse(answer);
      }
      const type = request.headers.get('content-type');
      const json = request.method === 'POST' && JSON_TYPE.test(type ?? '');
      if (!requestParser && !json) {
        const message =
          type === null
            ? 'The request has no Content-Type: send `Content-Type: application/json` with a JSON body.'
            : `A GraphQL request is sent as application/json (or GET with a query string), not ${type}.`;
        return endResponse(errorAnswer(request, url, new AppError('UNSUPPORTED_MEDIA_TYPE', message), log));
      }
      try {
        // Refusals by the headers alone, REST's, before the body limit takes the body from the
        // budget: a full one would answer them 503.
        if (request.method === 'POST' && isMultipart(type)) multipartReader(type!);
        else if (request.method === 'POST') refuseCharset(type);
        // Yoga's GET parser reads a parameter's first copy (the rest unread, as REST's once were),
        // and throws on variables or extensions that are not JSON: a 500.
        for (const name of request.method === 'GET' ? GET_PARAMS : []) {
          const value = oneValue(name, url.searchParams.getAll(name));
          if (value && name !== 'query' && name !== 'operationName' && !isJson(value)) {
            throw badRequest(`The query parameter '${name}' must be a JSON object, got '${value.slice(0, 64)}'.`);
          }
        }
      } catch (e) {
        return endResponse(errorAnswer(request, url, e, log));
      }
      if (isMultipart(type) && requestParser) setRequestParser((req) => parseMultipart(req, requestParser));
      // Yoga matches the media type with its case (RFC 9110: without): `application/JSON` had no parser.
      else if (json) setRequestParser((req) => (requestParser ? requestParser(asJsonText(req)) : parseJsonParams(req)));
    },
    onValidate({ addValidationRule }) {
      addValidationRule(knownOperationType);
    },
  };
}

/** The query parameters Yoga's GET parser reads. */
const GET_PARAMS = ['query', 'operationName', 'variables', 'extensions'];

/** The types Yoga's JSON parser takes, in any case. */
const JSON_TYPE = /^application\/(?:graphql\+)?json\s*(?:[;,]|$)/i;

/**
 * The request as Yoga's JSON parser reads it (its `json()`, nothing else), the text without a
 * leading byte order mark, which REST takes too and JSON.parse refused ("invalid JSON"), and
 * an empty body refused as such, not as invalid JSON.
 */
const asJsonText = (request: Request) =>
  ({
    json: () =>
      request.text().then((text) => {
        const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
        if (body.trim() === '') throwAsGraphQL(badRequest('The request body is empty: send a JSON object with `query`.'));
        if (holdsMoreValues(body)) throwAsGraphQL(badRequest(manyValues('request body')));
        return JSON.parse(body);
      }),
  }) as unknown as Request;

/** A JSON body in a spelling of its media type Yoga passed by, refused as Yoga's parser refuses one. */
const parseJsonParams = (request: Request): Promise<GraphQLParams> =>
  asJsonText(request)
    .json()
    .then(
      (body: unknown) => {
        if (body === null || typeof body !== 'object') throwAsGraphQL(badRequest(`POST body is expected to be object but received ${body === null ? 'null' : typeof body}`));
        return body as GraphQLParams;
      },
      (e: unknown) => (e instanceof GraphQLError ? Promise.reject(e) : throwAsGraphQL(badRequest('POST body sent invalid JSON.'))),
    );

const MAP_RULE = 'Multipart form field "map" must be a JSON object whose values are arrays of paths into "operations", such as {"0": ["variables.file"]}.';

type Parsed = GraphQLParams | GraphQLParams[] | Response;

/**
 * Yoga's multipart parser, its refusals made 400s with a code: it throws a missing or non-JSON
 * `operations` or `map` without one, a `map` entry that is not an array of paths as a TypeError,
 * and passes on `operations` that is not an object (a TypeError later), a path given as a string
 * (each letter taken as a path) and a map naming a part the request lacks (its variable set to
 * null). Refusals that have a code (not multipart at all, a 413, a client's hang-up while the body
 * limit read the body) pass as they are. Given Yoga's
 * own parser (this plugin is before the body limit's), it keeps the form to check the map against.
 */
async function parseMultipart(request: Request, parse: (request: Request) => Parsed | Promise<Parsed>): Promise<Parsed> {
  let form: FormData | undefined;
  // Yoga's multipart parser reads nothing of the request but its form.
  const keeping = { formData: () => request.formData().then((f) => (form = f)) } as unknown as Request;
  let operations: Parsed;
  try {
    operations = await parse(keeping);
  } catch (e) {
    if (findAppError(e) || (e instanceof GraphQLError && e.extensions?.code)) throw e;
    if (e instanceof GraphQLError) throwAsGraphQL(badRequest(`${e.message}.`));
    if (e instanceof TypeError) throwAsGraphQL(badRequest(MAP_RULE));
    throw e;
  }
  if (typeof operations !== 'object' || operations === null) {
    throwAsGraphQL(badRequest(`Multipart form field "operations" must be a JSON object (the GraphQL request: query, variables), got ${JSON.stringify(operations)?.slice(0, 64)}.`));
  }
  const problem = form && mapProblem(form);
  if (problem) throwAsGraphQL(badRequest(problem));
  return operations;
}

/** What is wrong with the form's `map`, which Yoga parsed as JSON: its shape, or a part it names that is no file of the request. */
function mapProblem(form: FormData): string | undefined {
  const text = form.get('map');
  if (typeof text !== 'string') return undefined;
  const map: unknown = JSON.parse(text);
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return MAP_RULE;
  for (const [part, paths] of Object.entries(map)) {
    if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string')) {
      return `${MAP_RULE} Got ${JSON.stringify(paths).slice(0, 64)} for "${part.slice(0, 64)}".`;
    }
    const file = form.get(part);
    if (file === null) return `Multipart form field "map" names the file part "${part.slice(0, 64)}", which the request does not have.`;
    if (typeof file === 'string') return `Multipart form field "map" names the part "${part.slice(0, 64)}", which is a text field, not a file.`;
  }
  return undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
