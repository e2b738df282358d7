/**
 * Structured JSON logs (pino). Secrets are redacted by key wherever they might appear, and
 * database errors are logged without their SQL or values (src/db-error-log.ts).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import { serializeError } from './db-error-log.js';

export type { Logger };

/** `destination` is for tests that read what was logged; the server writes to stdout. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'quire' },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: serializeError, error: serializeError },
      redact: {
        paths: ['password', 'clientSecret', 'client_secret', 'secret', 'token', 'refresh_token', 'authorization', '*.password', '*.authorization'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}
