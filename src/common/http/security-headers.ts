import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';

/** Helmet's headers for one response; `secure` says whether the request reached us over HTTPS. */
export type SecurityHeaders = (secure: boolean) => Readonly<Record<string, string>>;

const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  // Swagger UI at /docs ships its own styles and an inline init script.
  styleSrc: ["'self'", "'unsafe-inline'"],
  scriptSrc: ["'self'", "'unsafe-inline'"],
  imgSrc: ["'self'", 'data:'],
};

/**
 * Helmet's headers, collected once: with these options (no per-request CSP nonce) they are the
 * same on every response, so each request gets a ready header set instead of running helmet's
 * middleware and a dozen `setHeader` validations (@fastify/helmet even rebuilds the middleware,
 * and re-parses the CSP, per request). Two policies: a request that came over TLS (directly, or
 * through a trusted proxy's X-Forwarded-Proto) gets the strict one with upgrade-insecure-requests;
 * a plain HTTP request does not, since the browser would then rewrite /docs' assets to https://
 * and the page would stay blank when the service is reached over HTTP by a host name or IP.
 */
export function createSecurityHeaders(): SecurityHeaders {
  const overTls = headersOf(helmet({ contentSecurityPolicy: { directives: CSP_DIRECTIVES } }));
  const overHttp = headersOf(
    helmet({ contentSecurityPolicy: { directives: { ...CSP_DIRECTIVES, upgradeInsecureRequests: null } } }),
  );
  return (secure) => (secure ? overTls : overHttp);
}

type Middleware = (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void;

/** The headers a helmet middleware sets (it runs synchronously and reads nothing of the request). */
function headersOf(middleware: Middleware): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: () => undefined,
  };
  let failure: unknown;
  let finished = false;
  middleware({} as IncomingMessage, recorder as unknown as ServerResponse, (error) => {
    failure = error;
    finished = true;
  });
  if (failure !== undefined || !finished || !headers['content-security-policy']) {
    throw new Error('helmet did not produce its headers synchronously', { cause: failure });
  }
  return Object.freeze(headers);
}
