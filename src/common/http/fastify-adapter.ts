import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Configuration } from '../../config/configuration.js';
import { sendError } from '../errors/all-exceptions.filter.js';
import { errorAnswer, headersTooLarge, notHttp, requestTimeout } from '../errors/error-answer.js';
import { ApiError } from '../errors/error-codes.js';
import { pinoOptions } from './logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function clientErrorFor(error: NodeJS.ErrnoException): ApiError {
  if (error.code === 'HPE_HEADER_OVERFLOW') return headersTooLarge();
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return requestTimeout();
  return notHttp();
}

/**
 * Errors Node's HTTP parser raises before Fastify has a request (oversized headers, malformed
 * HTTP, slow headers) are answered on the raw socket, still as {error, details} with a request id.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, headers, body } = errorAnswer(clientErrorFor(error));
  const json = JSON.stringify(body);
  if (socket.writable) {
    const extra = Object.entries(headers)
      .filter(([name]) => name !== 'connection')
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n${extra}` +
        `X-Request-Id: ${randomUUID()}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
    );
  }
  socket.destroy();
}

export function createFastifyAdapter(config: Pick<Configuration, 'http' | 'logging'>): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: config.http.trustProxy,
    // No handlerTimeout: Fastify 5.12 clears it once a request body has been read (fastify#6725),
    // so it never fires for PUT/POST. REQUEST_TIMEOUT_MS is enforced by request-deadline.ts instead.
    // An HTTP/1.1 request without Host reaches the app, which answers it 400 with a body (Node's
    // own answer has none).
    http: { requireHostHeader: false },
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
    frameworkErrors: (error: { code?: string }, request: FastifyRequest, reply: FastifyReply) => {
      const details =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long.' : 'The request URL is not valid.';
      sendError(new ApiError('validation_failed', details), request, reply);
    },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
  });
}
