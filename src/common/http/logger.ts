import type { LoggerService } from '@nestjs/common';
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../../config/environment.js';

/**
 * Fastify's pino logger is the service's only log writer: one JSON line per event, with a numeric
 * pino `level` and `time`. Request logs carry method, path, status and latency only: no headers,
 * no bodies, no query string.
 */
export function pinoOptions(level: LogLevel): NonNullable<Exclude<FastifyServerOptions['logger'], boolean>> {
  return {
    level,
    serializers: {
      req: (request: { method: string; url: string }) => ({
        method: request.method,
        path: request.url.split('?')[0],
      }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
    },
    redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token'],
  };
}

type PinoLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * Nest's LoggerService written through Fastify's pino instance, so Nest's lines have the same
 * format as Fastify's. A line about a request names it itself (a message object with `reqId`, as
 * the error filter writes). There is deliberately no implicit request context: an
 * AsyncLocalStorage makes Node 20 and 22 run promise hooks on every promise of the process,
 * which cost ~20 µs per request, about a tenth of the notification list's throughput (bench).
 */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly root: FastifyBaseLogger) {}

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: PinoLevel, message: unknown, params: unknown[]): void {
    // Nest passes the context last; error() may pass a stack before it, which is left out: no stack
    // traces in logs.
    const last = params.at(-1);
    const context = typeof last === 'string' ? last : undefined;
    let fields: Record<string, unknown>;
    if (message instanceof Error) {
      fields = { msg: message.message, err: { type: message.name } };
    } else if (message !== null && typeof message === 'object') {
      fields = { ...(message as Record<string, unknown>) };
    } else {
      fields = { msg: String(message) };
    }
    const { msg, ...rest } = fields;
    this.root[level]({ context, ...rest }, typeof msg === 'string' ? msg : undefined);
  }
}

/** Nest's logger for an app on this Fastify instance. */
export function createNestLogger(fastify: FastifyInstance): PinoNestLogger {
  return new PinoNestLogger(fastify.log);
}
