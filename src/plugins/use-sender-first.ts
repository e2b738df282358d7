/**
 * /graphql refuses a request whose token is missing, invalid or expired (401) before its body is
 * read, as the REST runner does: without it, any sender could make the server hold
 * MAX_BODY_BYTES per request it had open, only to refuse each once parsed. GraphiQL's page (a GET)
 * carries no body and is not asked.
 */
import type { Plugin } from 'graphql-yoga';
import { authenticate, type Services } from '../context.js';
import { carriesBody } from '../rest/body.js';
import { errorAnswer } from './error-answer.js';

export function useSenderFirst(services: Services): Plugin {
  return {
    onRequestParse({ request, url, endResponse }) {
      if (!carriesBody(request)) return;
      const refuse = (e: unknown) => endResponse(errorAnswer(request, url, e, services.log));
      try {
        const checked = authenticate(services, request, undefined);
        if (checked) return checked.catch(refuse);
      } catch (e) {
        refuse(e);
      }
    },
  };
}
