import type { FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on the routes that take a multipart upload; every other route keeps refusing multipart with 415. */
    multipartUpload?: boolean;
    /**
     * Set on routes whose body or response may be large (uploads, downloads): the request deadline
     * becomes an idle limit while bytes move (see request-deadline.ts).
     */
    longTransfer?: boolean;
    /** Set on PUT routes that take no body: a request without one is accepted (`{}` still is). */
    bodyless?: boolean;
  }
}

/**
 * Route config of an upload route (`@RouteConfig(MULTIPART_UPLOAD_ROUTE)` in Nest). The request
 * guard that answers 415 to anything but JSON lets multipart/form-data through on these routes
 * only (and answers 415 to anything else there), and the JSON body-shape check skips them.
 * Here in common/http rather than in the documents feature because the guards read it.
 */
export const MULTIPART_UPLOAD_ROUTE = { multipartUpload: true, longTransfer: true } as const;

/**
 * Route config of a PUT that carries nothing (`@RouteConfig(BODYLESS_ROUTE)`): every other PUT
 * and PATCH must send a JSON object, so a forgotten body is an error there rather than no change.
 */
export const BODYLESS_ROUTE = { bodyless: true } as const;

/** Route config of a route that streams a possibly large response (file downloads). */
export const LONG_RESPONSE_ROUTE = { longTransfer: true } as const;

export function isMultipartUploadRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config?.multipartUpload === true;
}

export function isLongTransferRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config?.longTransfer === true;
}

export function isBodylessRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config?.bodyless === true;
}
