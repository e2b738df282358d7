/**
 * The REST face as a Yoga plugin: every path but /graphql is matched against the route table
 * and answered here, by the route's SOFA operation (src/rest/run-route.ts) or its dedicated
 * handler (the token endpoint), or with the 404 of a route the clients call that is not served.
 */
import type { Plugin } from 'graphql-yoga';
import { Response } from '@whatwg-node/fetch';
import type { GraphQLSchema } from 'graphql';
import type { Services } from '../context.js';
import type { DataTypes } from '../datatypes.js';
import { badRequest } from '../errors.js';
import { checkRouteTable } from '../rest/check-routes.js';
import { setConnection, type ConnectionContext } from '../rest/connection.js';
import { asRouteSends, errorEnvelope, methodRefusal } from '../rest/envelope.js';
import { handleDocs } from '../rest/docs.js';
import { buildOpenApi } from '../rest/openapi.js';
import { queryParam, RouteMatcher, segmentsOf } from '../rest/match.js';
import { isSofaRoute, routes } from '../rest/routes.js';
import { setRouteLabel } from '../rest/route-label.js';
import { createRouteRunner } from '../rest/run-route.js';
import { handleToken } from '../rest/token.js';
import { errorAnswer, isGraphQLPath } from './error-answer.js';

export function useRest(services: Services, schema: GraphQLSchema, dataTypes: DataTypes): Plugin {
  checkRouteTable(schema, routes);
  const matcher = new RouteMatcher();
  const runner = createRouteRunner(services, schema, dataTypes);
  const openApi = JSON.stringify(buildOpenApi(runner.sofaDocument, schema, services.config.publicUrl));

  async function handle(request: Request, url: URL, method: string): Promise<Response> {
    const segments = segmentsOf(url.pathname);
    if (!segments) throw badRequest('The request path is not valid percent-encoding.');
    // Read by src/plugins/use-suppress-response-codes.ts, which cannot refuse: its copies are checked here.
    queryParam(url.searchParams, 'suppress_response_codes');
    const result = matcher.match(method, segments, url.searchParams);
    if ('status' in result) {
      // Thrown, so that errorAnswer gives the token endpoint's its OAuth keys, as its other refusals have.
      if (result.status === 405) throw methodRefusal(request.method, result.allowed);
      // The path as sent, cut: a URL of any length up to MAX_HEADER_BYTES would be echoed whole.
      const path = url.pathname.length > 256 ? `${url.pathname.slice(0, 256)}…` : url.pathname;
      const message = `No resource matches ${method} ${path}.`;
      return errorEnvelope(request, 404, [{ code: 'NOT_FOUND', message, developerMessage: message }]);
    }
    const { route } = result.match;
    setRouteLabel(request, route);
    if (isSofaRoute(route)) {
      if (!route.refusalsAs200) return runner.run(request, url, route, result.match);
      return asRouteSends(route, await runner.run(request, url, route, result.match).catch((e) => errorAnswer(request, url, e, services.log)));
    }
    switch (route.handler) {
      case 'token':
        return handleToken(services, request, result.match);
      case 'openapi':
        return new Response(openApi, { headers: { 'content-type': 'application/json; charset=utf-8' } });
      case 'docs':
        return handleDocs(request, result.match);
      case 'notServed': {
        const message = `${route.method} ${route.path.slice(1)} is not served: ${route.reason}.`;
        return errorEnvelope(request, 404, [{ code: 'NOT_FOUND', message, developerMessage: message }]);
      }
    }
  }

  return {
    // Not async: /graphql requests pass on synchronously.
    onRequest({ request, url, endResponse, serverContext }) {
      if (isGraphQLPath(url)) return;
      setConnection(request, serverContext as ConnectionContext | undefined);
      // HEAD is answered as GET, with the same status and headers and no body (RFC 9110 9.3.2).
      const head = request.method === 'HEAD';
      return handle(request, url, head ? 'GET' : request.method)
        .catch((e) => errorAnswer(request, url, e, services.log))
        .then((r) => (head ? new Response(null, { status: r.status, headers: r.headers }) : r))
        .then(endResponse);
    },
  };
}
