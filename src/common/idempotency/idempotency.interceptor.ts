import { createHash } from 'node:crypto';
import { HttpStatus, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { HTTP_CODE_METADATA } from '@nestjs/common/constants.js';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { catchError, from, mergeMap, of, type Observable } from 'rxjs';
import { isUniqueViolation } from '../../database/database-errors.js';
import { Transactions } from '../../database/transactions.js';
import { ApiError } from '../errors/error-codes.js';
import { IdempotencyKey } from './idempotency-key.entity.js';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Longest Idempotency-Key accepted; visible ASCII only. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

const inFlight = () =>
  new ApiError(
    'idempotency_key_in_flight',
    'A request with this Idempotency-Key is still at work; retry after it has been answered.',
  );

/**
 * Idempotency-Key on the routes marked `@Idempotent()` (it is bound there, so no other route pays
 * for it): the first answer per (user, key) is kept for 24 h and given again to the same request;
 * claimed in its own transaction before the handler runs.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly now = () => new Date();

  constructor(
    private readonly reflector: Reflector,
    private readonly transactions: Transactions,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: { id?: string } }>();
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const key = request.headers['idempotency-key'];
    const userId = request.user?.id;
    if (key === undefined || userId === undefined) return next.handle();
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ApiError('validation_failed', 'Idempotency-Key must be 1 to 255 visible ASCII characters.');
    }
    const id = { userId, idempotencyKey: key };
    const first = await this.claim(id, requestHash(request));
    if (first) {
      if (first.location) void reply.header('location', first.location);
      void reply.header('idempotent-replayed', 'true');
      return of(first.responseBody === null ? undefined : JSON.parse(first.responseBody));
    }
    const status =
      this.reflector.get<number>(HTTP_CODE_METADATA, context.getHandler()) ??
      (request.method === 'POST' ? HttpStatus.CREATED : HttpStatus.OK);
    return next.handle().pipe(
      mergeMap(async (body: unknown) => {
        const location = reply.getHeader('location');
        await this.transactions.run((tx) =>
          tx.getRepository(IdempotencyKey).update(id, {
            status,
            responseBody: body === undefined ? null : JSON.stringify(body),
            location: typeof location === 'string' ? location : null,
          }),
        );
        return body;
      }),
      // A failed request keeps nothing: the same key may try again.
      catchError((error: unknown) =>
        from(
          this.transactions
            .run((tx) => tx.getRepository(IdempotencyKey).delete(id))
            .then(() => {
              throw error;
            }),
        ),
      ),
    );
  }

  /** The kept first answer, or undefined once this request holds the key (an expired one is taken over). */
  private async claim(
    id: Pick<IdempotencyKey, 'userId' | 'idempotencyKey'>,
    hash: string,
  ): Promise<IdempotencyKey | undefined> {
    try {
      return await this.transactions.run(async (tx) => {
        const rows = tx.getRepository(IdempotencyKey);
        const now = this.now();
        const found = await rows.findOneBy(id);
        if (found && found.expiresAt > now) {
          if (found.requestHash !== hash) {
            throw new ApiError(
              'idempotency_key_reused',
              'This Idempotency-Key was used with a different request in the last 24 hours; use a new key.',
            );
          }
          if (found.status === null) throw inFlight();
          return found;
        }
        if (found) await rows.delete(id);
        await rows.insert({
          ...id,
          requestHash: hash,
          status: null,
          responseBody: null,
          location: null,
          expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS),
        });
        return undefined;
      });
    } catch (error) {
      // A concurrent request with the same key claimed it first.
      if (isUniqueViolation(error)) throw inFlight();
      throw error;
    }
  }
}

/** What makes two requests "the same": method, route and JSON body (keys in any order). */
function requestHash(request: FastifyRequest): string {
  const route = request.routeOptions.url ?? request.url;
  return createHash('sha256')
    .update(`${request.method} ${route} ${request.url}\n${canonicalJson(request.body)}`)
    .digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
