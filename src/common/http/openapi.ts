import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { DEMO_EXAMPLE } from '../demo-ids.js';
import { ERROR_STATUS } from '../errors/error-codes.js';
import { DOCUMENTED_ERROR_CODES, ErrorResponseDto } from '../errors/error-response.dto.js';

/** Builds the OpenAPI document from the controllers and DTOs and serves it at /docs (UI), /docs-json, /docs-yaml. */
export function setupOpenApi(app: NestFastifyApplication): void {
  SwaggerModule.setup('docs', app, buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    yamlDocumentUrl: 'docs-yaml',
    // "Try it out" with pre-filled values must work as shown: keep the token across reloads and
    // show the request duration; id examples name the demo data (src/common/demo-ids.ts).
    swaggerOptions: { persistAuthorization: true, displayRequestDuration: true },
  });
}

export function buildOpenApiDocument(app: NestFastifyApplication): OpenAPIObject {
  const document = SwaggerModule.createDocument(app, buildOpenApiConfig(), {
    operationIdFactory: (controllerKey, methodKey) =>
      `${controllerKey.replace(/Controller$/, '').replace(/^./, (c) => c.toLowerCase())}_${methodKey}`,
    extraModels: [ErrorResponseDto],
  });
  return tightenDocument(document);
}

const TAG_DESCRIPTIONS: Record<string, string> = {
  audit: 'The audit trail of every change: list, export, verify the chain head.',
  auth: 'Log in for a bearer token; log out to revoke every token of the caller.',
  comments: 'Comments on documents, with @username mentions.',
  content: "Documents' extracted text and previews; content indexing for administrators.",
  'document-types': 'The types a document can have (administration).',
  documents: 'Upload, versions, download, metadata, workflow, history and trash of documents.',
  health: 'Liveness and readiness probes for orchestrators; public.',
  'legal-holds': 'Legal holds that keep documents from deletion, purge and retention.',
  notifications: "The caller's own notifications: inbox, threads, preferences, live stream.",
  projects: 'Projects and their members (manager, contributor, reader).',
  reviews: 'Reviews with named reviewers and due dates: request, answer, what awaits me.',
  roles: 'Roles and the permissions they grant (administration).',
  'saved-searches': "The caller's saved document searches.",
  shares: "Share links: a document's file for anyone holding the link, until it expires.",
  users: 'User accounts (administration).',
  watches: 'Watch or mute documents and projects to hear of their changes.',
  webhooks: 'Webhooks that receive signed change events, and their deliveries.',
};

/** Response headers every operation may name by reference (components.headers). */
export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description:
      "Identifies the request in the service's logs: the client's own X-Request-Id when it is 1-128 characters " +
      'of A-Z a-z 0-9 . _ : -, otherwise a new UUID. Sent with every response.',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying. Sent with every 429 and 503.',
    required: true,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647 },
  },
  ETag: {
    description:
      'Version of the returned document, `"v<rowVersion>"`, to send back as If-Match; on file content the ' +
      'strong tag `"<sha256>"` of the bytes, to send back as If-None-Match.',
    required: true,
    schema: { type: 'string', maxLength: 66, pattern: '^"(v[0-9]{1,20}|[0-9a-f]{64})"$' },
  },
  Location: {
    description: 'URL of the resource the request created.',
    required: true,
    schema: { type: 'string', format: 'uri-reference', maxLength: 2048 },
  },
} as const;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

const STATUS_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '204': 'No Content' };

type Json = Record<string, unknown>;
const headerRef = (name: ResponseHeaderName) => ({ $ref: `#/components/headers/${name}` });

/**
 * What @nestjs/swagger has no option to say once for every operation: the headers every response
 * carries, request bodies closed to unknown fields, the bounds a format implies. Error responses
 * come whole from @ApiErrors; this never reads descriptions.
 */
function tightenDocument(document: OpenAPIObject): OpenAPIObject {
  const components = (document.components ??= {});
  components.headers = { ...components.headers, ...structuredClone(RESPONSE_HEADERS) } as never;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;

  const paths = Object.keys(document.paths);
  for (const [path, pathItem] of Object.entries(document.paths) as [string, Record<string, Json>][]) {
    // A resource created at `path` is addressed below it (`path/{id}`): its 201 says where.
    const createsAddressable = paths.some((other) => other.startsWith(`${path}/{`));
    for (const operation of Object.values(pathItem)) {
      if (!operation || typeof operation !== 'object' || !('responses' in operation)) continue;
      for (const parameter of (operation.parameters as Json[] | undefined) ?? []) {
        const schema = parameter.schema as Json | undefined;
        // Every id parameter goes through the one UUID pipe (any case, normalised to lower case).
        if (schema && parameter.in === 'path' && String(parameter.name).endsWith('Id')) schema.format ??= 'uuid';
        if (schema) boundScalars(schema);
        // Request headers (If-Match...) are bounded by Node's 16 KiB header limit.
        if (schema && parameter.in === 'header' && schema.type === 'string') schema.maxLength ??= 8192;
        // "Try it out" sends examples: a path id names a demo row, the rest start empty (page + cursor is a 400).
        delete parameter.example;
        if (schema) delete schema.example;
        const demoId = DEMO_EXAMPLE[parameter.name as keyof typeof DEMO_EXAMPLE];
        if (demoId && parameter.in === 'path') parameter.example = demoId;
      }

      // The global pipe refuses unknown fields with 400: say so, so that clients refuse them first.
      const bodySchema = jsonSchemaOf(operation.requestBody as Json | undefined);
      const bodyRef = typeof bodySchema?.$ref === 'string' ? bodySchema.$ref.split('/').pop()! : undefined;
      if (bodyRef && schemas[bodyRef]) schemas[bodyRef].additionalProperties = false;

      for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
        if (!response.description) response.description = STATUS_TEXT[status] ?? 'Success';
        const headers = (response.headers ?? {}) as Record<string, unknown>;
        const named = (name: ResponseHeaderName) =>
          Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase()) ?? name;
        for (const name of Object.keys(RESPONSE_HEADERS) as ResponseHeaderName[]) {
          if (headers[named(name)] !== undefined) headers[named(name)] = headerRef(name);
        }
        headers['X-Request-Id'] = headerRef('X-Request-Id');
        if (status === '201' && createsAddressable) headers.Location = headerRef('Location');
        // File content carries the strong ETag of its bytes (200, 206, 416, and the 304 of If-None-Match);
        // so do share links (/s/{token}), their HTML page included.
        const fileContent = path.startsWith('/api/documents/') && path.endsWith('/content');
        if ((fileContent || path.startsWith('/s/')) && ['200', '206', '304', '416'].includes(status))
          headers.ETag = headerRef('ETag');
        for (const header of Object.values(headers) as Json[]) {
          const schema = header.schema as Json | undefined;
          // Response headers are bounded like request headers (Node's 16 KiB header limit).
          if (schema?.type === 'string') schema.maxLength ??= 8192;
        }
        for (const media of Object.values((response.content as Record<string, Json> | undefined) ?? {})) {
          const schema = media.schema as Json | undefined;
          // A file's bytes: at most the largest upload UPLOAD_MAX_BYTES allows (1 TiB).
          if (schema?.type === 'string' && schema.format === 'binary') schema.maxLength ??= 1_099_511_627_776;
        }
        response.headers = headers;
      }
    }
  }

  for (const schema of Object.values(schemas)) walkSchema(schema, boundScalars);

  // A header component nothing refers to yet (e.g. Location before any operation creates) is left out.
  const text = JSON.stringify(document.paths);
  for (const name of Object.keys(RESPONSE_HEADERS)) {
    if (!text.includes(`"#/components/headers/${name}"`)) delete (components.headers as Record<string, unknown>)[name];
  }
  return document;
}

/**
 * Bounds that follow from a value's format alone, filled in where a DTO left them out: a UUID is
 * 36 characters, an ISO date-time at most 30 (the service writes 24), an integer without a format
 * is int32 unless its range needs int64. True of every value the service accepts or answers.
 */
function boundScalars(schema: Json): void {
  if (schema.type === 'string') {
    if (schema.format === 'binary') schema.maxLength ??= 1_099_511_627_776;
    if (schema.format === 'uuid') schema.maxLength ??= 36;
    if (schema.format === 'date-time') schema.maxLength ??= 30;
  }
  if (schema.type === 'integer' && schema.format === undefined) {
    const limit = Math.max(Math.abs(Number(schema.maximum ?? 0)), Math.abs(Number(schema.minimum ?? 0)));
    schema.format = limit > 2_147_483_647 ? 'int64' : 'int32';
  }
}

/** Calls `visit` on a schema and every schema nested in it (properties, items, allOf/oneOf/anyOf). */
function walkSchema(schema: unknown, visit: (schema: Json) => void): void {
  if (!schema || typeof schema !== 'object') return;
  const node = schema as Json;
  visit(node);
  for (const child of Object.values((node.properties as Json | undefined) ?? {})) walkSchema(child, visit);
  walkSchema(node.items, visit);
  if (typeof node.additionalProperties === 'object') walkSchema(node.additionalProperties, visit);
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    for (const child of (node[key] as unknown[] | undefined) ?? []) walkSchema(child, visit);
  }
}

function jsonSchemaOf(holder: Json | undefined): Json | undefined {
  const content = holder?.content as Record<string, Json> | undefined;
  return content?.['application/json']?.schema as Json | undefined;
}

function buildOpenApiConfig() {
  const codes = DOCUMENTED_ERROR_CODES.map((code) => `| ${ERROR_STATUS[code]} | \`${code}\` |`).join('\n');
  const builder = new DocumentBuilder()
    .setTitle('Document Management Service')
    .setVersion('0.1.0')
    .setDescription(
      [
        'Documents stored by project: upload files and their versions, download them (ranges, previews, ' +
          'extracted text), edit metadata, move documents through a review workflow with named reviewers, check ' +
          'them out, comment on them, share a file by link, search and list them, and keep them in a trash ' +
          'before purging (legal holds keep them). Around them: projects and their members, document types, users ' +
          'and roles (administration), an audit trail of every change, webhooks, and notifications of what ' +
          'changed (inbox, watches, preferences, e-mail and a live stream).',
        '',
        '**Try it out.** `npm run demo` seeds demo users (admin, alice, bob, erin) and documents with fixed ids; ' +
          "the id examples here are alice's first document and the rows around it, so log in as alice and Execute.",
        '',
        '**Authentication.** POST /api/auth/login returns a signed JWT (default lifetime 1 hour, JWT_EXPIRES_IN): ' +
          'HS256 with JWT_SECRET, or RS256/ES256 when JWT_PRIVATE_KEY and JWT_PUBLIC_KEY are set. ' +
          'Send it as `Authorization: Bearer <token>`. Tokens are revoked by POST /api/auth/logout, by a password ' +
          'change and by deactivating the user.',
        '',
        '**Permissions.** Each operation names what it needs: a role permission (`resource:action`, see GET ' +
          '/api/roles) or a project role. A document is read by the members of its project, its uploader and ' +
          '`documents:read`; changed by its uploader while a contributor or manager of the project, by a project ' +
          'manager and by `documents:update`; published, rejected or archived by a project manager and by ' +
          '`documents:publish`. Every authenticated user reads and manages only their own notifications.',
        '',
        '**Headers.** Every response carries `X-Request-Id`; every 429 and 503 carries `Retry-After` (seconds).',
        '',
        '**Errors.** Every error is `{ "error": "<code>", "details": "<sentence>" }` with one of these codes:',
        '',
        '| Status | error |',
        '|---|---|',
        codes,
      ].join('\n'),
    )
    .addBearerAuth({
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'A token from POST /api/auth/login. Handled as RFC8725 (JWT best current practices) asks: one pinned ' +
        'algorithm, issuer, audience and expiry always checked.',
    });
  for (const [name, description] of Object.entries(TAG_DESCRIPTIONS)) builder.addTag(name, description);
  const config = builder.build();
  // addServer has no place for the x-internal extension the OWASP ruleset asks for.
  config.servers = [
    {
      url: '/',
      description:
        'This service, at the origin the document was loaded from (local, staging or production deployment).',
      'x-internal': false,
    } as never,
  ];
  return config;
}
