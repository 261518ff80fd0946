import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** Sets helmet's headers on one response; `secure` says whether the request reached us over HTTPS. */
export type SecurityHeaders = (request: IncomingMessage, response: ServerResponse, secure: boolean) => void;

const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  // Swagger UI at /docs ships its own styles and an inline init script.
  styleSrc: ["'self'", "'unsafe-inline'"],
  scriptSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
};

/**
 * Helmet's headers, built once (@fastify/helmet rebuilds helmet's middleware, and re-parses the
 * CSP, on every request). Two policies: a request that came over TLS (directly, or through a
 * trusted proxy's X-Forwarded-Proto) gets the strict one with upgrade-insecure-requests; a plain
 * HTTP request does not, since the browser would then rewrite /docs' assets to https:// and the
 * page would stay blank when the service is reached over HTTP by a host name or IP (e.g. Docker).
 */
export function createSecurityHeaders(): SecurityHeaders {
  const overTls = helmet({ contentSecurityPolicy: { directives: CSP_DIRECTIVES } });
  const overHttp = helmet({
    contentSecurityPolicy: { directives: { ...CSP_DIRECTIVES, upgradeInsecureRequests: null } },
  });
  return (request, response, secure) => (secure ? overTls : overHttp)(request, response, () => undefined);
}
