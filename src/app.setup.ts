import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { ConsoleLogger, ValidationPipe, type ValidationError } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter.js';
import { ApiError, ERROR_STATUS } from './common/errors/error-codes.js';
import { inspectJson } from './common/validation/json-bounds.validator.js';
import type { AppConfig } from './config/app.config.js';

/** Any JSON body nested deeper than this is refused before class-transformer walks it recursively. */
export const MAX_BODY_DEPTH = 32;
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Errors Node's HTTP parser raises before Fastify has a request (oversized headers, malformed
 * HTTP, slow clients) are answered on the raw socket, still as {error, details}.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, code, details] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'headers_too_large', 'The request line or headers are too large.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'request_timeout', 'The request was not received in time.']
        : [400, 'Bad Request', 'bad_request', 'The request is not valid HTTP.'];
  const body = JSON.stringify({ error: code, details });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

export function createFastifyAdapter(config: AppConfig): FastifyAdapter {
  return new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    // Covers the whole route lifecycle (guards included), so a database that hangs rather than
    // refusing connections still gets the client a 503 in bounded time.
    handlerTimeout: config.requestTimeoutMs,
    // Nest's closing hook would answer 503 in its own body shape; stop accepting instead.
    return503OnClosing: false,
    // Accept a caller's X-Request-Id when it is safe to log, else make one.
    requestIdHeader: false,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const incoming = request.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    },
    logger:
      config.logLevel === 'silent'
        ? false
        : {
            level: config.logLevel,
            // Request logs carry method, path, status and latency only: no headers, no bodies, no query.
            serializers: {
              req: (request: { method: string; url: string }) => ({
                method: request.method,
                path: request.url.split('?')[0],
              }),
              res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
            },
            redact: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.token'],
          },
    routerOptions: { ignoreTrailingSlash: false },
    clientErrorHandler: answerClientError,
    // Router-level rejections (undecodable URL, over-long path parameter) get the same shape.
    frameworkErrors: (error: { code?: string }, _request: unknown, reply: FastifyReply) => {
      const details =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long.' : 'The request URL is not valid.';
      void reply.code(400).type('application/json; charset=utf-8').send({ error: 'validation_failed', details });
    },
    onProtoPoisoning: 'error',
    onConstructorPoisoning: 'error',
  });
}

export function createLogger(config: AppConfig): ConsoleLogger {
  const levels = { fatal: ['fatal'], error: ['fatal', 'error'], warn: ['fatal', 'error', 'warn'] } as const;
  return new ConsoleLogger({
    json: true,
    logLevels:
      config.logLevel === 'silent'
        ? []
        : [...(levels[config.logLevel as keyof typeof levels] ?? ['fatal', 'error', 'warn', 'log'])],
  });
}

function flatten(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = prefix ? `${prefix}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      prefix ? message.replace(error.property, path) : message,
    );
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Set on SIGTERM: every response from then on closes its connection, so keep-alive clients let go. */
const lifecycle = { draining: false };
export function startDraining(): void {
  lifecycle.draining = true;
}

/** Everything that makes the app this service: shared by main.ts and the e2e tests. */
export async function configureApp(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();

  // Built once: @fastify/helmet rebuilds helmet's middleware (and re-parses the CSP) on every request.
  const securityHeaders = helmet({
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
  if (config.corsOrigins.length)
    app.enableCors({ origin: config.corsOrigins, exposedHeaders: ['ETag', 'X-Request-Id'] });

  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  fastify.addHook('onRequest', (request, reply, done) => {
    securityHeaders(request.raw, reply.raw, () => undefined);
    void reply.header('x-request-id', request.id);
    done(unsupportedMediaType(request));
  });

  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (lifecycle.draining) void reply.header('connection', 'close');
    done(null, payload);
  });

  // Runs after JSON parsing and before Nest's pipes: the body must be one bounded JSON object.
  fastify.addHook('preHandler', (request, _reply, done) => {
    done(invalidBodyShape(request));
  });

  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      stopAtFirstError: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: false, value: false },
      exceptionFactory: (errors) =>
        new ApiError('validation_failed', flatten(errors).join('; ') || 'The request is not valid.'),
    }),
  );
  app.useGlobalFilters(new AllExceptionsFilter());

  const document = SwaggerModule.createDocument(app, buildOpenApiConfig(), {
    operationIdFactory: (controllerKey, methodKey) =>
      `${controllerKey.replace(/Controller$/, '').replace(/^./, (c) => c.toLowerCase())}_${methodKey}`,
  });
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', yamlDocumentUrl: 'docs-yaml' });
}

/** A body on POST/PUT/PATCH must be JSON (415 otherwise); undefined when the request is fine. */
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

/** The parsed body must be one plain JSON object without prototype keys, at most MAX_BODY_DEPTH deep. */
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

function buildOpenApiConfig() {
  const codes = Object.entries(ERROR_STATUS)
    .map(([code, status]) => `| ${status} | \`${code}\` |`)
    .join('\n');
  return new DocumentBuilder()
    .setTitle('Document Management Service')
    .setVersion('0.1.0')
    .setDescription(
      [
        "Login, document metadata updates and the caller's notifications.",
        '',
        '**Authentication.** POST /api/auth/login returns an HS256 JWT (default lifetime 1 hour, JWT_EXPIRES_IN). ' +
          'Send it as `Authorization: Bearer <token>`. Tokens are revoked by POST /api/auth/logout, by a password ' +
          'change and by deactivating the user.',
        '',
        '**Permissions.** Any authenticated user lists their own notifications only. A document can be updated by ' +
          'its uploader and by users holding a role whose permissions include `"documents": ["update"]` ' +
          '(the seeded `admin` role).',
        '',
        '**Errors.** Every error is `{ "error": "<code>", "details": "<sentence>" }` with one of these codes:',
        '',
        '| Status | error |',
        '|---|---|',
        codes,
      ].join('\n'),
    )
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' })
    .build();
}
