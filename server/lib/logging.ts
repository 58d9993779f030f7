import pino, { type Logger, type LoggerOptions } from 'pino';

/**
 * Paths redacted wherever they appear in a log object. Card data and secrets never reach a
 * log line; this list is the second line of defence after not logging bodies at all.
 */
export const REDACT_PATHS = [
  'password',
  '*.password',
  'accessToken',
  '*.accessToken',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'basicAuth',
  '*.basicAuth',
  'encryptedCard',
  '*.encryptedCard',
  '*.*.encryptedCard',
  'number',
  '*.number',
  '*.*.number',
  'securityCode',
  '*.securityCode',
  '*.*.securityCode',
  'clientSecret',
  '*.clientSecret',
  'pares',
  '*.pares',
  'secret',
  '*.secret',
];

export function createLogger(
  options: LoggerOptions & { destination?: pino.DestinationStream } = {},
): Logger {
  const { destination, ...rest } = options;
  const opts: LoggerOptions = {
    level: 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: {},
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(rest as LoggerOptions),
  };
  return destination ? pino(opts, destination) : pino(opts);
}

/** A logger that writes nothing, for tests that do not look at logs. */
export const silentLogger: Logger = pino({ level: 'silent' });

export type { Logger };
