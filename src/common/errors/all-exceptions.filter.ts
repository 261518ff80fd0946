import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeForLog, mapError } from './error-mapping.js';

/** The one owner of the error shape: every exception Nest sees leaves as {error, details}. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    sendError(exception, request, reply, this.logger);
  }
}

export function sendError(exception: unknown, request: FastifyRequest, reply: FastifyReply, logger: Logger): void {
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
  void reply.status(mapped.status).headers(mapped.headers).type('application/json; charset=utf-8').send(mapped.body);
}
