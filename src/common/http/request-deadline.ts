import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendError } from '../errors/all-exceptions.filter.js';
import { handlerTimeout, requestTimeout } from '../errors/error-answer.js';
import { isLongTransferRoute } from './transfer-routes.js';

/** Bytes moved on the request's connection so far, both ways (progress of an upload or a download). */
function bytesMoved(request: FastifyRequest): number {
  const socket = request.raw.socket as { bytesRead?: number; bytesWritten?: number } | null;
  return (socket?.bytesRead ?? 0) + (socket?.bytesWritten ?? 0);
}

/**
 * Answers every request within timeoutMs of its arrival. A client that has not finished sending
 * its body by then gets 408 request_timeout (its fault, not logged as an error) and the
 * connection is closed; a request that was received whole but is still being worked on (a
 * database that hangs instead of refusing) gets 503 with Retry-After, logged as our failure.
 *
 * Routes marked `longTransfer` (uploads of up to UPLOAD_MAX_BYTES, file downloads) cannot promise
 * a total time: a 1 GiB upload on a slow link rightly takes minutes. For them the same timeoutMs
 * is an idle limit instead: at each tick the request lives on while its body is still arriving or
 * its response is being sent *and* bytes moved on the connection since the last tick; a stalled
 * client is cut off (408 while its body is incomplete, else the connection is closed), and the
 * work between the last body byte and the first response byte is still bounded (503): it gets at
 * least one whole tick and at most two.
 */
export function enforceRequestDeadline(fastify: FastifyInstance, timeoutMs: number): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const idleLimited = isLongTransferRoute(request);
    // Only an idle-limited route needs the byte counts (bytesWritten copies the socket's write queue).
    let moved = idleLimited ? bytesMoved(request) : 0;
    let workTickGiven = false;
    let timer: NodeJS.Timeout;
    const expire = () => {
      if (reply.sent) return;
      if (idleLimited) {
        const now = bytesMoved(request);
        const transferring = !request.raw.complete || reply.raw.headersSent;
        const progressed = now !== moved;
        moved = now;
        // Still sending or receiving: live on. The body's last bytes arrived during this tick: one
        // whole tick more for the work after it (storing, committing), whatever was left of this one.
        if (progressed && (transferring || !workTickGiven)) {
          if (!transferring) workTickGiven = true;
          timer = setTimeout(expire, timeoutMs);
          return;
        }
      }
      if (reply.raw.headersSent) {
        // A response that already started cannot become an error answer; end it.
        reply.raw.destroy();
        return;
      }
      // IncomingMessage.complete: Node's parser has seen the whole message, body included.
      sendError(request.raw.complete ? handlerTimeout() : requestTimeout(), request, reply);
    };
    timer = setTimeout(expire, timeoutMs);
    // 'close' on the response: it was sent, or the connection went away first.
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
