/** Builds the Yoga app: schema, shared context, error masking, GraphiQL, limits, REST. */
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useGraphQlJit } from '@envelop/graphql-jit';
import { GraphQLError, Kind, type GraphQLSchema, type ValidationContext } from 'graphql';
import { buildContext, type Services } from './context.js';
import { buildSchema } from './schema.js';
import { maskWithoutRequest, throwAsGraphQL } from './graphql-errors.js';
import { useErrorMapping } from './plugins/use-error-mapping.js';
import { useRest } from './plugins/use-rest.js';
import { useSenderFirst } from './plugins/use-sender-first.js';
import { useClientAddress } from './plugins/use-client-address.js';
import { useReadBudget } from './plugins/use-read-budget.js';
import { useResponseOrder } from './plugins/use-response-order.js';
import { useVaryOrigin } from './plugins/use-vary-origin.js';
import { useCors } from './plugins/use-cors.js';
import { useRefusalLimit } from './plugins/use-refusal-limit.js';
import { useSessionCheck } from './plugins/use-session-check.js';
import { useHealth } from './plugins/use-health.js';
import { useGraphiQL } from './plugins/use-graphiql.js';
import { useMetrics } from './plugins/use-metrics.js';
import { useRetryAfter } from './plugins/use-retry-after.js';
import { useConnectionClose } from './plugins/use-connection-close.js';
import { useGraphQLTransport } from './plugins/use-graphql-transport.js';
import { useOperationChoice } from './plugins/use-operation-choice.js';
import { useNestingLimit } from './plugins/use-nesting-limit.js';
import { useNoNul } from './plugins/use-no-nul.js';
import { useBodyLimit } from './plugins/use-body-limit.js';
import { useContentEncoding } from './plugins/use-content-encoding.js';
import { bodyLimitOf } from './rest/body-limit.js';
import { useRequestLog } from './plugins/use-request-log.js';
import { usePublicUrl } from './plugins/use-public-url.js';
import { useSuppressResponseCodes } from './plugins/use-suppress-response-codes.js';
import { requestIdOf } from './rest/request-id.js';
import { dataTypes } from './datatypes.js';

export interface App {
  fetch: (request: Request, ...rest: unknown[]) => Promise<Response> | Response;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  handle: YogaServerInstance<any, any>;
  schema: GraphQLSchema;
}

/**
 * Armor's refusals reported as validation errors: thrown, they passed Yoga's validation hook by
 * and answered 200 without a code even under `application/graphql-response+json`. Its message's
 * "Syntax Error: " prefix goes too: the query's syntax is fine. The token limit, counted as the
 * query is parsed, has no validation context: its refusal is thrown, a parse failure as before.
 */
const asValidationError = {
  propagateOnRejection: false,
  onReject: [
    (ctx: ValidationContext | null, err: GraphQLError) => {
      const refusal = new GraphQLError(err.message.replace(/^Syntax Error: /, ''));
      if (!ctx) throw refusal;
      ctx.reportError(refusal);
    },
  ],
};

/** The tokens a /graphql query may have (armor's limit). */
const MAX_QUERY_TOKENS = 2000;

/** GraphiQL's first query: every request needs a token, so it says how to get one and where it goes. */
const GRAPHIQL_WELCOME = `# quire GraphQL. Every request needs a bearer token,
# the schema's own (for Docs) included. Get one:
#
#   POST /oauth/token, form-encoded: grant_type=password,
#   client_id, client_secret, username, password
#
# and put its access_token in Headers below:
#   {"Authorization": "Bearer <access_token>"}
# then reload the schema (the button bottom left).
{
  me {
    id
    name
    firstName
    lastName
  }
}
`;

export function createApp(services: Services): App {
  const schema = buildSchema();
  const yoga = createYoga({
    schema,
    // Any case, trailing slash optional, as REST paths match (isGraphQLPath); GraphiQL calls the plain one.
    // Doubled slashes are made one before the app (src/http-server.ts).
    graphqlEndpoint: '/([Gg][Rr][Aa][Pp][Hh][Qq][Ll]){/}?',
    // Served by useGraphiQL, rendered once, with an ETag and compressed.
    graphiql: false,
    landingPage: false,
    // Ours (useCors, first below): Yoga's answered every OPTIONS with an empty 204.
    cors: false,
    logging: false,
    // Enforced by useBodyLimit with the configured limit, without a stream per request.
    maxRequestBodySize: false,
    // /graphql's context (REST's is built in SOFA's context hook, src/rest/run-route.ts).
    // Synchronous when buildContext is (a known token): no promise per request for nothing.
    context: ({ request }) => {
      try {
        const ctx = buildContext(services, request, requestIdOf(request), undefined);
        return ctx instanceof Promise ? ctx.catch(throwAsGraphQL) : ctx;
      } catch (e) {
        return throwAsGraphQL(e);
      }
    },
    // Execution errors are mapped with their request id (useErrorMapping); this catches the rest,
    // leaving what needs the request's id to useErrorMapping too.
    maskedErrors: { maskError: maskWithoutRequest },
    plugins: [
      useCors(services.config.corsOrigins),
      useMetrics(services),
      useRequestLog(services.log),
      useClientAddress(services.config.trustedProxies),
      useVaryOrigin(services.config.corsOrigins),
      useRetryAfter(),
      useConnectionClose(),
      usePublicUrl(services.config.publicUrl),
      useSuppressResponseCodes(),
      // Compiled execution, cached per document (REST documents are fixed; /graphql's are parsed once per text).
      // The cache ignores operationName: a document of several operations ran the one first compiled
      // whatever operationName chose, so those run uncompiled.
      useGraphQlJit({}, { enableIf: ({ document }) => document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).length === 1 }) as Plugin,
      useRefusalLimit(),
      useSessionCheck(),
      useErrorMapping(services.log),
      useHealth(services),
      useGraphiQL({ title: 'quire GraphQL', endpoint: '/graphql', defaultQuery: GRAPHIQL_WELCOME, defaultEditorToolsVisibility: 'headers' }),
      useNoNul(services.log),
      useContentEncoding(services.log),
      // Before the body limit: its multipart parser wraps Yoga's own, not the limit's.
      useGraphQLTransport(services.log),
      useSenderFirst(services),
      useBodyLimit(services.config.maxBodyBytes, bodyLimitOf(services.config), services.bodies, services.log),
      useOperationChoice(),
      EnvelopArmorPlugin({
        // A fragment spread is no level of its own: a query is as deep with fragments as written inline.
        maxDepth: { n: 8, flattenFragments: true, ...asValidationError },
        maxAliases: { n: 15, ...asValidationError },
        maxDirectives: { n: 50, ...asValidationError },
        costLimit: { maxCost: 5000, ...asValidationError },
        maxTokens: { n: MAX_QUERY_TOKENS, ...asValidationError },
        blockFieldSuggestion: { enabled: false },
      }) as Plugin,
      useNestingLimit(MAX_QUERY_TOKENS),
      useReadBudget(services.config),
      useResponseOrder(),
      useRest(services, schema, dataTypes),
    ],
  });
  return { fetch: yoga.fetch as App['fetch'], handle: yoga, schema };
}
