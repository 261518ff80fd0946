import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';

const COUNTED = Symbol('inFlight');

/**
 * The requests whose handlers are still at work, so that shutdown lets them finish before the
 * database closes. Fastify's close waits for open connections only: a request whose client has
 * already gone would otherwise run on while the pool closes under it (its write failing, or cut
 * short by the exit). A request counts from `onRequest` until its answer is handed to Fastify
 * (`onSend`: the handler ended, error answers included) or, for a hijacked reply (the
 * notification stream), until its response closes.
 *
 * Provided by the root module: Nest runs its `onApplicationShutdown` first and the global
 * modules' (TypeORM's, which closes the pool) last. The whole shutdown stays bounded by
 * SHUTDOWN_GRACE_MS (main.ts).
 */
@Injectable()
export class InFlightRequests implements OnApplicationShutdown {
  private running = 0;
  private waiting: (() => void)[] = [];

  /** Adds the counting hooks to the app's Fastify instance. */
  track(fastify: FastifyInstance): void {
    fastify.decorateRequest(COUNTED, false);
    fastify.addHook('onRequest', (request, reply, done) => {
      request[COUNTED] = true;
      this.running++;
      // A response that closes ended (or was hijacked) is done; one that closes unanswered had
      // its client leave, and its handler ends at onSend.
      reply.raw.once('close', () => {
        if (reply.sent) this.release(request);
      });
      done();
    });
    fastify.addHook('onSend', (request, _reply, payload, done) => {
      this.release(request);
      done(null, payload);
    });
  }

  /** Handlers at work now. */
  get count(): number {
    return this.running;
  }

  /** Resolves once no handler is at work. */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  onApplicationShutdown(): Promise<void> {
    return this.idle();
  }

  private release(request: FastifyRequest): void {
    if (!request[COUNTED]) return;
    request[COUNTED] = false;
    if (--this.running > 0) return;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    [COUNTED]: boolean;
  }
}
