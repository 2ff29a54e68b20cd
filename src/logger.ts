import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Secrets are redacted by path as a last line of defence; the code never
 * logs keys, credentials or prompts in the first place.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gateway' },
      redact: {
        paths: ['*.authorization', '*.Authorization', '*["x-api-key"]', '*.apiKey', '*.api_key', '*.key', '*.credential', '*.token'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}
