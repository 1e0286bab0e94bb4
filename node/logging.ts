import { pino, type Logger as PinoLogger } from 'pino';
import { LOG_LEVELS, type LogLevel } from './config/schema.js';

/**
 * Structured logs (pino, one JSON object per line, `time` in ISO 8601 UTC so lines from several
 * machines read and sort alike). They go to stderr, so that stdout carries
 * only a command's result (`ledger keys new`, `ledger start`'s RPC URL) and can be piped.
 */
export type Logger = PinoLogger;
export { LOG_LEVELS, type LogLevel };

export interface LoggerOptions {
  level: LogLevel;
  name?: string;
  /** a file descriptor or path; default 2 (stderr) */
  destination?: number | string;
}

export function isLogLevel(value: unknown): value is LogLevel {
  return (LOG_LEVELS as readonly unknown[]).includes(value);
}

export function createLogger(options: LoggerOptions): Logger {
  if (!isLogLevel(options.level)) throw new RangeError(`unknown log level ${JSON.stringify(options.level)}; levels: ${LOG_LEVELS.join(', ')}`);
  const destination = pino.destination({ dest: options.destination ?? 2, sync: true });
  return pino({ level: options.level, name: options.name ?? 'ledger', base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
