import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

export type SecurityHeaders = (request: IncomingMessage, response: ServerResponse, next: () => void) => void;

/**
 * Helmet's headers, built once: @fastify/helmet rebuilds helmet's middleware (and re-parses the
 * CSP) on every request.
 */
export function createSecurityHeaders(): SecurityHeaders {
  return helmet({
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        // Swagger UI at /docs ships its own styles and an inline init script.
        styleSrc: ["'self'", "'unsafe-inline'"],
        scriptSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:'],
      },
    },
  });
}
