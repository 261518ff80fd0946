import type { FastifyRequest } from 'fastify';
import { ApiError } from '../errors/error-codes.js';
import { inspectJson } from '../validation/json-bounds.validator.js';

/** Any JSON body nested deeper than this is refused before class-transformer walks it recursively. */
export const MAX_BODY_DEPTH = 32;

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export /** A body on POST/PUT/PATCH must be JSON (415 otherwise); undefined when the request is fine. */
function unsupportedMediaType(request: FastifyRequest): ApiError | undefined {
  if (request.method !== 'POST' && request.method !== 'PUT' && request.method !== 'PATCH') return undefined;
  const hasBody =
    request.headers['transfer-encoding'] !== undefined ||
    (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');
  if (!hasBody) return undefined;
  const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json') return undefined;
  return new ApiError('unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
}

export /** The parsed body must be one plain JSON object without prototype keys, at most MAX_BODY_DEPTH deep. */
function invalidBodyShape(request: FastifyRequest): ApiError | undefined {
  if (request.method !== 'POST' && request.method !== 'PUT' && request.method !== 'PATCH') return undefined;
  if (request.body === undefined) {
    if (request.method === 'POST') return undefined; // e.g. logout, which takes no body
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
  return undefined;
}
