import type { FastifyRequest } from 'fastify';
import { missingHost, routeNotFound, unsupportedMediaType } from '../errors/error-answer.js';
import { ApiError } from '../errors/error-codes.js';
import { hasLoneSurrogate } from '../text/unicode.js';
import { describeIllFormedText, inspectJson } from '../validation/json-bounds.validator.js';
import { isBodylessRoute, isMultipartUploadRoute } from './transfer-routes.js';

/** Any JSON body nested deeper than this is refused before class-transformer walks it recursively. */
export const MAX_BODY_DEPTH = 32;

function hasBodyMethod(request: FastifyRequest): boolean {
  return request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH';
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * class-transformer skips keys that name an Object.prototype member ("toString", "valueOf"...), so
 * the pipe's whitelist never sees them: they are refused here, in the pipe's words.
 */
function prototypeNamedKeys(value: object): ApiError | undefined {
  const named = Object.keys(value).filter((key) => key in Object.prototype);
  if (!named.length) return undefined;
  return new ApiError('validation_failed', named.map((key) => `property ${key} should not exist`).join('; '));
}

/**
 * What can be refused from the request line and headers alone, before the body is read:
 * an HTTP/1.1 request without Host (400), an unknown route (404, whatever its body or content
 * type), a body that is not JSON (415) — or, on an upload route (MULTIPART_UPLOAD_ROUTE), a body
 * that is not multipart/form-data (415). Undefined when the request may go on.
 */
export function rejectBeforeBody(request: FastifyRequest): ApiError | undefined {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) return missingHost();
  if (request.is404) return routeNotFound();
  if (!hasBodyMethod(request)) return undefined;
  const hasBody =
    request.headers['transfer-encoding'] !== undefined ||
    (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');
  if (!hasBody) return undefined;
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (isMultipartUploadRoute(request)) {
    return type === 'multipart/form-data'
      ? undefined
      : new ApiError('unsupported_media_type', 'Send the upload as multipart/form-data.');
  }
  return type === 'application/json' ? undefined : unsupportedMediaType();
}

/**
 * The parsed body must be one plain JSON object without prototype keys, at most MAX_BODY_DEPTH
 * deep, and every string and key in it well-formed UTF-16.
 */
export function invalidBody(request: FastifyRequest): ApiError | undefined {
  // An upload's body is a stream the handler reads (readMultipartUpload checks its parts).
  if (!hasBodyMethod(request) || isMultipartUploadRoute(request)) return undefined;
  if (request.body === undefined) {
    if (request.method === 'POST') return undefined; // e.g. logout, which takes no body
    if (isBodylessRoute(request)) return undefined; // e.g. PUT …/watch
    return new ApiError('validation_failed', 'The request body must be a JSON object; send {} for no changes.');
  }
  if (!isPlainObject(request.body)) return new ApiError('validation_failed', 'The request body must be a JSON object.');
  const shape = inspectJson(request.body, MAX_BODY_DEPTH);
  if (shape.forbiddenKey) {
    return new ApiError('validation_failed', `The request body must not contain the key "${shape.forbiddenKey}".`);
  }
  if (shape.depth > MAX_BODY_DEPTH) {
    return new ApiError(
      'validation_failed',
      `The request body must not be nested more than ${MAX_BODY_DEPTH} levels deep.`,
    );
  }
  if (shape.illFormedText) return new ApiError('validation_failed', describeIllFormedText(shape.illFormedText));
  return prototypeNamedKeys(request.body as object);
}

/** Query parameter names and values must be well-formed UTF-16 too. */
export function invalidQuery(request: FastifyRequest): ApiError | undefined {
  const query = request.query as Record<string, string | string[]> | undefined;
  if (!query) return undefined;
  const prototypeNamed = prototypeNamedKeys(query);
  if (prototypeNamed) return prototypeNamed;
  for (const name of Object.keys(query)) {
    const values = query[name];
    if (hasLoneSurrogate(name)) {
      return new ApiError('validation_failed', describeIllFormedText({ path: 'query parameter names', inKey: false }));
    }
    for (const value of Array.isArray(values) ? values : [values]) {
      if (typeof value === 'string' && hasLoneSurrogate(value)) {
        return new ApiError('validation_failed', describeIllFormedText({ path: name, inKey: false }));
      }
    }
  }
  return undefined;
}
