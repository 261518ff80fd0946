import fastifyMultipart from '@fastify/multipart';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AllExceptionsFilter } from './common/errors/all-exceptions.filter.js';
import { ConnectionDraining } from './common/http/draining.js';
import { InFlightRequests } from './common/http/in-flight-requests.js';
import { setupOpenApi } from './common/http/openapi.js';
import { invalidBody, invalidQuery, rejectBeforeBody } from './common/http/request-guards.js';
import { enforceRequestDeadline } from './common/http/request-deadline.js';
import { createSecurityHeaders } from './common/http/security-headers.js';
import { createValidationPipe } from './common/http/validation.pipe.js';
import type { HttpConfig } from './config/configuration.js';
import { MULTIPART_PLUGIN_OPTIONS } from './storage/multipart-upload.js';

export { createFastifyAdapter } from './common/http/fastify-adapter.js';

/**
 * Everything that makes the app this service, shared by main.ts and the e2e tests: security
 * headers, request ids, request guards and deadline, in-flight counting, the global pipe and
 * filter, Swagger.
 * Answers the handle that SIGTERM uses to make every further response close its connection.
 */
export async function configureApp(app: NestFastifyApplication, config: HttpConfig): Promise<ConnectionDraining> {
  const fastify = app.getHttpAdapter().getInstance();
  const securityHeaders = createSecurityHeaders();
  const draining = new ConnectionDraining();

  if (config.corsOrigins.length)
    app.enableCors({ origin: config.corsOrigins, exposedHeaders: ['ETag', 'X-Request-Id'] });

  // Shutdown waits for every handler at work, also those whose clients have gone.
  app.get(InFlightRequests).track(fastify);
  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  fastify.addHook('onRequest', (request, reply, done) => {
    // protocol is 'https' over TLS, or with TRUST_PROXY when the proxy says X-Forwarded-Proto: https.
    void reply.headers(securityHeaders(request.protocol === 'https'));
    void reply.header('x-request-id', request.id);
    done(rejectBeforeBody(request));
  });
  enforceRequestDeadline(fastify, config.requestTimeoutMs);
  // Multipart is parsed only where a handler reads it (readMultipartUpload, on the upload routes);
  // rejectBeforeBody answers 415 to it on every other route before any body byte is read.
  await app.register(fastifyMultipart, MULTIPART_PLUGIN_OPTIONS);

  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (draining.active) void reply.header('connection', 'close');
    done(null, payload);
  });

  // Runs after JSON parsing and before Nest's guards and pipes.
  fastify.addHook('preHandler', (request, _reply, done) => {
    done(invalidBody(request) ?? invalidQuery(request));
  });

  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  setupOpenApi(app);
  return draining;
}
