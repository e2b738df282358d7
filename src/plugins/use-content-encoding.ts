/**
 * Request bodies are taken as sent, never decompressed: one with a Content-Encoding other than
 * `identity` (gzip, deflate, br) is a 415 before anything reads it, on either face, with
 * `Accept-Encoding: identity` (RFC 9110 15.5.16). Its bytes were read as if plain: JSON that
 * did not parse, or a form whose values were compressed bytes.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../errors.js';
import type { Logger } from '../log.js';
import { errorAnswer } from './error-answer.js';

export function useContentEncoding(log: Logger): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      const header = request.headers.get('content-encoding');
      if (header === null) return;
      const codings = header.split(',').map((c) => c.trim()).filter((c) => c !== '' && c.toLowerCase() !== 'identity');
      if (codings.length === 0) return;
      const named = codings.join(', ').slice(0, 64);
      const message = `Request bodies with Content-Encoding '${named}' are not supported; send the body uncompressed.`;
      const answer = errorAnswer(request, url, new AppError('UNSUPPORTED_MEDIA_TYPE', message), log);
      answer.headers.set('accept-encoding', 'identity');
      endResponse(answer);
    },
  };
}
