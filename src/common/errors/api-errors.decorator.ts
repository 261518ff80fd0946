import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ApiResponse, DECORATORS, getSchemaPath } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from './error-codes.js';
import { ERROR_EXAMPLE_DETAILS } from './error-codes.js';
import { ErrorResponseDto } from './error-response.dto.js';

/** A code shows the catalogue's example sentence; `[code, details]` shows this operation's own. */
export type ApiErrorExample = ErrorCode | [code: ErrorCode, details: string];

/** What any operation may answer: a bad parameter or request line, a failure, no database or a missed deadline. */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  'validation_failed',
  'bad_request',
  'internal_error',
  'service_unavailable',
];

/** What an operation that reads a JSON body (`@Body()`) may answer besides. */
export const BODY_ERRORS: readonly ErrorCode[] = [
  'invalid_json',
  'request_timeout',
  'payload_too_large',
  'unsupported_media_type',
];

const HEADERS_BY_STATUS: Record<number, string[]> = { 412: ['ETag'], 429: ['Retry-After'], 503: ['Retry-After'] };
const CODES_METADATA = 'dms:api-errors';

/**
 * The error answers of an operation, from the error catalogue: per HTTP status one ErrorResponseDto
 * response whose description lists its codes and which shows one example per code. On a handler it
 * adds COMMON_ERRORS, and BODY_ERRORS when the handler takes `@Body()`; several on one handler
 * (say, from `@Idempotent()`) add up. On a controller class it applies to every handler.
 */
export function ApiErrors(...examples: ApiErrorExample[]) {
  return (target: object, key?: string | symbol, descriptor?: PropertyDescriptor): void => {
    const holder = (descriptor?.value ?? target) as object;
    const details = new Map<ErrorCode, string>(Reflect.getMetadata(CODES_METADATA, holder) ?? []);
    const add = (code: ErrorCode, own?: string) =>
      details.set(code, own ?? details.get(code) ?? ERROR_EXAMPLE_DETAILS[code] ?? code);
    if (descriptor) {
      for (const code of COMMON_ERRORS) add(code);
      if (key !== undefined && takesBody(target, key)) for (const code of BODY_ERRORS) add(code);
    }
    for (const example of examples) {
      if (typeof example === 'string') add(example);
      else add(example[0], example[1]);
    }
    Reflect.defineMetadata(CODES_METADATA, [...details], holder);

    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of details.keys())
      byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
    for (const [status, codes] of byStatus) {
      // ApiResponse appends to an existing entry's description; this one replaces it with the whole set.
      const { [status]: _replaced, ...others } = (Reflect.getMetadata(DECORATORS.API_RESPONSE, holder) ?? {}) as Record<
        number,
        unknown
      >;
      Reflect.defineMetadata(DECORATORS.API_RESPONSE, others, holder);
      ApiResponse({
        status,
        description: describe(codes),
        headers: Object.fromEntries(
          (HEADERS_BY_STATUS[status] ?? []).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
        ),
        content: {
          'application/json': {
            schema: { $ref: getSchemaPath(ErrorResponseDto) },
            examples: Object.fromEntries(
              codes.map((code) => [code, { summary: code, value: { error: code, details: details.get(code) } }]),
            ),
          },
        },
      })(target, key as string, descriptor as PropertyDescriptor);
    }
  };
}

/** Parameter decorators run before method decorators, so the handler's `@Body()` is known here. */
function takesBody(target: object, key: string | symbol): boolean {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, target.constructor, key) ?? {}) as Record<string, unknown>;
  return Object.keys(args).some((arg) => arg.split(':')[0] === String(RouteParamtypes.BODY));
}

function describe(codes: ErrorCode[]): string {
  const named = codes.map((code) => `\`${code}\``);
  return named.length === 1 ? named[0] : `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`;
}
