import type { FastifyInstance } from 'fastify';
import { sendError } from '../errors/all-exceptions.filter.js';
import { handlerTimeout, requestTimeout } from '../errors/error-answer.js';

/**
 * Answers every request within timeoutMs of its arrival. A client that has not finished sending
 * its body by then gets 408 request_timeout (its fault, not logged as an error) and the
 * connection is closed; a request that was received whole but is still being worked on (a
 * database that hangs instead of refusing) gets 503 with Retry-After, logged as our failure.
 */
export function enforceRequestDeadline(fastify: FastifyInstance, timeoutMs: number): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const timer = setTimeout(() => {
      if (reply.sent) return;
      if (reply.raw.headersSent) {
        // A response that already started cannot become an error answer; end it.
        reply.raw.destroy();
        return;
      }
      // IncomingMessage.complete: Node's parser has seen the whole message, body included.
      sendError(request.raw.complete ? handlerTimeout() : requestTimeout(), request, reply);
    }, timeoutMs);
    // 'close' on the response: it was sent, or the connection went away first.
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
