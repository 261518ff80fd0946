import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Every response the e2e apps send is checked against the app's own /docs-json: the status is
 * documented for the operation, the headers the service manages are declared (and the required
 * ones sent), and the JSON body matches the response schema, with objects closed to undocumented
 * properties. A mismatch is recorded here and fails the test that caused it (see
 * openapi-response-check.setup.ts, a vitest setup file), whatever HTTP client the test used.
 */

type Json = Record<string, unknown>;

/** A body that is not JSON (a stream, HTML, YAML): its headers and status are still checked. */
const NOT_JSON = Symbol('not JSON');

export interface ResponseMismatch {
  /** e.g. "PUT /api/documents/{documentId} answered 200" */
  operation: string;
  problems: string[];
}

const mismatches: ResponseMismatch[] = [];

/** Takes (and clears) what was recorded since the last call. */
export function takeResponseMismatches(): ResponseMismatch[] {
  return mismatches.splice(0, mismatches.length);
}

export function describeMismatches(found: ResponseMismatch[]): string {
  return (
    `${found.length} response(s) do not match the OpenAPI document (/docs-json):\n` +
    found.map((mismatch) => `- ${mismatch.operation}:\n    ${mismatch.problems.join('\n    ')}`).join('\n')
  );
}

/** The headers this service sets itself; any of them sent must be declared on that response. */
const MANAGED_HEADERS = ['x-request-id', 'retry-after', 'etag', 'location'];

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export class OpenApiResponseValidator {
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly operations: { method: string; path: string; pattern: RegExp; operation: Json }[] = [];

  constructor(private readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addFormat('int32', {
      type: 'number',
      validate: (n: number) => Number.isInteger(n) && Math.abs(n) < 2 ** 31,
    });
    this.ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
    const components = closeObjects(structuredClone((document.components ?? {}) as Json));
    this.ajv.addSchema({ components }, 'openapi');
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
        const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
        this.operations.push({ method: method.toUpperCase(), path, pattern, operation });
      }
    }
  }

  /** Checks one response; answers the problems (empty when it matches). */
  check(method: string, routePath: string | undefined, status: number, headers: Json, body: unknown): string[] {
    const problems: string[] = [];
    const header = (name: string) => headers[name.toLowerCase()];
    if (header('x-request-id') === undefined) problems.push('header X-Request-Id is missing');
    if (method === 'HEAD' || method === 'OPTIONS') return problems;

    const openApiPath = routePath?.replace(/:(\w+)/g, '{$1}');
    const found = this.operations.find((candidate) => candidate.method === method && candidate.path === openApiPath);
    if (!found) {
      // Not an operation of the document (unknown route, /docs itself): errors still have the error shape.
      if (status >= 400 && body !== NOT_JSON) {
        problems.push(...this.validate('#/components/schemas/ErrorResponseDto', body, 'body'));
      }
      return problems;
    }
    const responses = found.operation.responses as Record<string, Json>;
    const response = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    if (!response) {
      problems.push(`status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`);
      return problems;
    }

    const declared = Object.fromEntries(
      Object.entries((response.headers ?? {}) as Record<string, Json>).map(([name, value]) => [
        name.toLowerCase(),
        this.resolve(value),
      ]),
    );
    for (const name of MANAGED_HEADERS) {
      if (header(name) !== undefined && !declared[name]) problems.push(`header ${name} is sent but not declared`);
    }
    for (const [name, spec] of Object.entries(declared)) {
      const value = header(name);
      if (value === undefined) {
        // A missing X-Request-Id is reported above, for every response.
        if (spec.required && name !== 'x-request-id') problems.push(`header ${name} is declared required but missing`);
        continue;
      }
      const schema = spec.schema as Json | undefined;
      const typed =
        schema?.type === 'integer' && typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (schema) problems.push(...this.validateSchema(schema, typed, `header ${name}`));
    }

    const content = response.content as Record<string, Json> | undefined;
    const json = content?.['application/json'];
    if (body === NOT_JSON) return problems;
    if (json?.schema) {
      problems.push(...this.validateSchema(json.schema as Json, body, 'body'));
    } else if (body !== undefined && content === undefined) {
      problems.push('a body is sent but the response declares no content');
    }
    return problems;
  }

  private resolve(value: Json): Json {
    const ref = value.$ref;
    if (typeof ref !== 'string') return value;
    const [, , kind, name] = ref.split('/');
    const components = this.document.components as Record<string, Record<string, Json> | undefined>;
    return components[kind ?? '']?.[name ?? ''] ?? {};
  }

  private validate(ref: string, value: unknown, where: string): string[] {
    return this.validateSchema({ $ref: ref }, value, where);
  }

  private validateSchema(schema: Json, value: unknown, where: string): string[] {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      // Component references resolve in the document registered as "openapi".
      const rebased = JSON.parse(key.replaceAll('"#/components/', '"openapi#/components/')) as Json;
      validate = this.ajv.compile(closeObjects(rebased));
      this.validators.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${where}${error.instancePath || ''} ${error.message ?? 'is invalid'}` +
        (error.keyword === 'additionalProperties'
          ? `: ${String((error.params as { additionalProperty?: string }).additionalProperty)}`
          : ''),
    );
  }
}

/** An object schema with properties and no word on others gets additionalProperties: false (undocumented fields fail). */
function closeObjects<T>(schema: T): T {
  if (Array.isArray(schema)) {
    schema.forEach((item) => closeObjects(item));
  } else if (schema && typeof schema === 'object') {
    const object = schema as Json;
    if (object.properties && typeof object.properties === 'object' && object.additionalProperties === undefined) {
      object.additionalProperties = false;
    }
    for (const value of Object.values(object)) closeObjects(value);
  }
  return schema;
}

/**
 * Installs the check on a Fastify instance (before it listens); `validator` is read per response,
 * so the document can be loaded from /docs-json once the app is up.
 */
export function checkResponsesAgainstOpenApi(
  fastify: FastifyInstance,
  validator: () => OpenApiResponseValidator | undefined,
): void {
  fastify.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done) => {
    const current = validator();
    if (current) {
      const body = parseJsonPayload(payload, String(reply.getHeader('content-type') ?? ''));
      {
        const problems = current.check(
          request.method,
          request.routeOptions.url,
          reply.statusCode,
          reply.getHeaders(),
          body,
        );
        if (problems.length) {
          const path = request.routeOptions.url?.replace(/:(\w+)/g, '{$1}') ?? `(no route) ${request.url}`;
          mismatches.push({ operation: `${request.method} ${path} answered ${reply.statusCode}`, problems });
        }
      }
    }
    done(null, payload as never);
  });
}

function parseJsonPayload(payload: unknown, contentType: string): unknown {
  if (payload === undefined || payload === null || payload === '') return undefined;
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return NOT_JSON; // a stream: not JSON here
  if (!contentType.startsWith('application/json')) return NOT_JSON; // /docs HTML, YAML, files
  try {
    return JSON.parse(payload.toString());
  } catch {
    return NOT_JSON;
  }
}
