import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply } from 'fastify';
import type { Configuration } from '../../config/configuration.js';
import { pinoOptions } from './logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Errors Node's HTTP parser raises before Fastify has a request (oversized headers, malformed
 * HTTP, slow clients) are answered on the raw socket, still as {error, details}.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, details] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request line or headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'request_timeout', 'The request was not received in time.']
        : [400, 'Bad Request', 'bad_request', 'The request is not valid HTTP.'];
  const body = JSON.stringify({ error: code, details });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function createFastifyAdapter(config: Pick<Configuration, 'http' | 'logging'>): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: config.http.trustProxy,
    // Covers the whole route lifecycle (guards included), so a database that hangs rather than
    // refusing connections still gets the client a 503 in bounded time.
    handlerTimeout: config.http.requestTimeoutMs,
    // Nest's closing hook would answer 503 in its own body shape; stop accepting instead.
    return503OnClosing: false,
    // Accept a caller's X-Request-Id when it is safe to log, else make one.
    requestIdHeader: false,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    // The one logger of the process: Nest writes through it too (createNestLogger).
    logger: pinoOptions(config.logging.level),
    routerOptions: { ignoreTrailingSlash: false },
    clientErrorHandler: answerClientError,
    // Router-level rejections (undecodable URL, over-long path parameter) get the same shape.
    frameworkErrors: (error: { code?: string }, _request: unknown, reply: FastifyReply) => {
      const details =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long.' : 'The request URL is not valid.';
      void reply.code(400).type('application/json; charset=utf-8').send({ error: 'validation_failed', details });
    },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
  });
}
