import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sendError } from '../errors/all-exceptions.filter.js';
import { handlerTimeout, requestTimeout } from '../errors/error-answer.js';
import { isLongTransferRoute } from './transfer-routes.js';

/** Bytes moved on the request's connection so far, both ways (progress of an upload or a download). */
function bytesMoved(request: FastifyRequest): number {
  const socket = request.raw.socket as { bytesRead?: number; bytesWritten?: number } | null;
  return (socket?.bytesRead ?? 0) + (socket?.bytesWritten ?? 0);
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Answers within timeoutMs: 408 to a client still sending its body, 503 to a read (or a write not yet
 * in its handler) still at work. A write whose handler started is never answered 503: it may still
 * commit, and the retry a 503 invites would repeat it (docs/decisions/0002-request-deadline.md).
 * Long-transfer routes (uploads, downloads) get timeoutMs as an idle limit while bytes move.
 */
export function enforceRequestDeadline(fastify: FastifyInstance, timeoutMs: number): void {
  const startedWrites = new WeakSet<FastifyRequest>();
  fastify.addHook('preHandler', (request, _reply, done) => {
    if (WRITE_METHODS.has(request.method)) startedWrites.add(request);
    done();
  });
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
      // A started write whose body has arrived is left to finish: only the database bounds it now.
      if (startedWrites.has(request) && request.raw.complete) return;
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
