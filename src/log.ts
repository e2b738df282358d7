/** Structured JSON logs (pino). Secrets are redacted by key wherever they might appear. */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'quire' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: ['password', 'clientSecret', 'client_secret', 'secret', 'token', 'refresh_token', 'authorization', '*.password', '*.authorization'],
      censor: '[redacted]',
    },
  });
}
