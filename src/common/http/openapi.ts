import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { ERROR_STATUS } from '../errors/error-codes.js';

/** Builds the OpenAPI document from the controllers and DTOs and serves it at /docs (UI), /docs-json, /docs-yaml. */
export function setupOpenApi(app: NestFastifyApplication): void {
  const document = SwaggerModule.createDocument(app, buildOpenApiConfig(), {
    operationIdFactory: (controllerKey, methodKey) =>
      `${controllerKey.replace(/Controller$/, '').replace(/^./, (c) => c.toLowerCase())}_${methodKey}`,
  });
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json', yamlDocumentUrl: 'docs-yaml' });
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
