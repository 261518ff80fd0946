import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeForLog, mapError } from './error-mapping.js';

const logger = new Logger('Errors');

/** Every exception Nest sees leaves through sendError. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    sendError(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}

/**
 * Sends anything thrown as the one error answer (see errorAnswer), with the request id, and logs
 * the failures that are ours. Also used by the Fastify-level handlers that run before Nest.
 */
export function sendError(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const mapped = mapError(exception);
  if (mapped.unexpected) {
    logger.error({
      msg: 'request failed',
      reqId: request.id,
      method: request.method,
      path: request.routeOptions?.url ?? request.url.split('?')[0],
      status: mapped.status,
      err: describeForLog(exception),
    });
  }
  if (reply.sent) return;
  void reply
    .status(mapped.status)
    .header('x-request-id', request.id)
    .headers(mapped.headers)
    .type('application/json; charset=utf-8')
    .send(mapped.body);
}
