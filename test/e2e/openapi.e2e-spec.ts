import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DETAILS_LENGTH } from '../../src/common/errors/error-answer.js';
import { ERROR_STATUS } from '../../src/common/errors/error-codes.js';
import { ERROR_EXAMPLE_DETAILS } from '../../src/common/errors/error-codes.js';
import { DOCUMENTED_ERROR_CODES } from '../../src/common/errors/error-response.dto.js';
import { DEMO_EXAMPLE, DEMO_IDS } from '../../src/common/demo-ids.js';
import { databasesUnderTest } from '../support/databases.js';
import { OpenApiResponseValidator } from '../support/openapi-response-validator.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

const run = promisify(execFile);

type Json = Record<string, any>;
interface SpectralIssue {
  code: string;
  severity: number;
  message: string;
  path: string[];
}

/** Spectral with the project's ruleset (.spectral.yaml: spectral:oas and the OWASP ruleset). */
async function spectral(document: Json): Promise<SpectralIssue[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'dms-openapi-')), 'openapi.json');
  writeFileSync(file, JSON.stringify(document));
  const result = await run(
    'node_modules/.bin/spectral',
    ['lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet'],
    { encoding: 'utf8' },
  ).catch((error: { stdout: string }) => error);
  return JSON.parse(result.stdout || '[]') as SpectralIssue[];
}

function operationsOf(spec: Json): { name: string; operation: Json }[] {
  return Object.entries(spec.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${path}`,
      operation: operation as Json,
    })),
  );
}

describe.each(databasesUnderTest())('the OpenAPI document on %s', (kind) => {
  let t: TestApp;
  let spec: Json;
  beforeAll(async () => {
    t = await createTestApp(kind);
    spec = (await request(t.url).get('/docs-json')).body as Json;
  });
  afterAll(async () => {
    await t?.close();
  });

  // Two Spectral processes, CPU-bound: about 7 s on an idle 2-core machine, past the default 30 s
  // when other suites load it (seen at load average 15). The test is about what Spectral reports,
  // not how fast, so it gets a budget of its own.
  it(
    'passes Spectral with spectral:oas and the OWASP ruleset: no error, no warning',
    { timeout: 180_000 },
    async () => {
      expect(await spectral(spec)).toEqual([]);
      // The OWASP ruleset is really in force: a string without a bound is reported.
      const loosened = structuredClone(spec);
      delete loosened.components.schemas.LoginDto.properties.username.maxLength;
      expect((await spectral(loosened)).map((issue) => issue.code)).toContain('owasp:api4:2023-string-limit');
    },
  );

  it('is a valid OpenAPI document for @apidevtools/swagger-parser', async () => {
    await expect(SwaggerParser.validate(structuredClone(spec) as never)).resolves.toBeDefined();
    const broken = structuredClone(spec);
    broken.paths['/api/notifications'].get.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/Missing',
    };
    await expect(SwaggerParser.validate(broken as never)).rejects.toThrow(/Missing/);
  });

  it('shows each error response with its own codes and a realistic sentence', () => {
    for (const code of DOCUMENTED_ERROR_CODES) expect(ERROR_EXAMPLE_DETAILS[code], code).toBeTruthy();
    // The only sentences an operation words itself: an upload's 413 and 415 (the catalogue's speak of JSON).
    const uploadOwn: Record<string, string> = {
      payload_too_large: 'The file must be at most 104857600 bytes (UPLOAD_MAX_BYTES, 100 MiB by default).',
      unsupported_media_type: 'Send the upload as multipart/form-data.',
    };
    const uploads = ['POST /api/documents', 'POST /api/documents/{documentId}/versions'];
    const seen = new Map<string, number>();
    for (const { name, operation } of operationsOf(spec)) {
      // Every operation may answer a bad request line, a failure and an unreachable database.
      for (const status of ['400', '500', '503'])
        expect(operation.responses[status], `${name} ${status}`).toBeDefined();
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (Number(status) < 400) continue;
        // An error is JSON whatever the operation produces on success (files, text, event streams).
        expect(Object.keys(response.content), `${name} ${status}`).toEqual(['application/json']);
        const json = response.content['application/json'];
        expect(json.schema, `${name} ${status}`).toEqual({ $ref: '#/components/schemas/ErrorResponseDto' });
        const examples = Object.entries<{ value: { error: string; details: string } }>(json.examples ?? {});
        expect(examples.length, `${name} ${status}`).toBeGreaterThan(0);
        for (const [key, { value }] of examples) {
          expect(key).toBe(value.error);
          expect(ERROR_STATUS[value.error as keyof typeof ERROR_STATUS], `${name} ${status} ${value.error}`).toBe(
            Number(status),
          );
          // The description lists exactly the codes the examples show.
          expect(response.description, `${name} ${status}`).toContain(`\`${value.error}\``);
          const own = uploads.includes(name) ? uploadOwn[value.error] : undefined;
          expect(value.details, `${name} ${status}`).toBe(
            own ?? ERROR_EXAMPLE_DETAILS[value.error as keyof typeof ERROR_STATUS],
          );
          seen.set(value.details, Number(status));
        }
        expect(String(response.description).match(/`[a-z_]+`/g)?.length, `${name} ${status}`).toBe(examples.length);
      }
    }
    for (const upload of uploads) {
      const [method, path] = upload.split(' ');
      expect(spec.paths[path][method.toLowerCase()].responses['413'].content['application/json'].examples).toEqual({
        payload_too_large: {
          summary: 'payload_too_large',
          value: { error: 'payload_too_large', details: uploadOwn.payload_too_large },
        },
      });
    }
    // 400, 401, 403, 404, 408, 412, 413, 415, 429, 500 and 503 each show their own sentences.
    expect(new Set(seen.values()).size).toBeGreaterThanOrEqual(11);
    expect(spec.paths['/api/documents/{documentId}'].put.responses['404'].content['application/json'].examples).toEqual(
      {
        document_not_found: {
          summary: 'document_not_found',
          value: { error: 'document_not_found', details: ERROR_EXAMPLE_DETAILS.document_not_found },
        },
      },
    );
  });

  it('declares X-Request-Id on every response, Retry-After on every 429 and 503, ETag where it is sent', () => {
    expect(Object.keys(spec.components.headers).sort()).toEqual(['ETag', 'Location', 'Retry-After', 'X-Request-Id']);
    expect(spec.components.headers['Retry-After'].schema).toMatchObject({ type: 'integer', minimum: 1 });
    for (const { name, operation } of operationsOf(spec)) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        expect(response.headers['X-Request-Id'], `${name} ${status}`).toEqual({
          $ref: '#/components/headers/X-Request-Id',
        });
        const retryAfter =
          status === '429' || status === '503' ? { $ref: '#/components/headers/Retry-After' } : undefined;
        expect(response.headers['Retry-After'], `${name} ${status}`).toEqual(retryAfter);
      }
    }
    const update = spec.paths['/api/documents/{documentId}'].put.responses;
    for (const status of ['200', '412'])
      expect(update[status].headers.ETag).toEqual({ $ref: '#/components/headers/ETag' });
  });

  it('states the bounds the service enforces', () => {
    const schemas = spec.components.schemas;
    expect(schemas.UpdateDocumentDto.additionalProperties).toBe(false);
    expect(schemas.LoginDto.additionalProperties).toBe(false);
    expect(schemas.UpdateDocumentDto.properties.tags.items).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 64,
    });
    expect(schemas.UpdateDocumentDto.properties.tags.maxItems).toBe(100);
    expect(schemas.LoginResponseDto.properties.expiresIn).toMatchObject({ type: 'integer', minimum: 1 });
    expect(schemas.ErrorResponseDto.properties.details.maxLength).toBe(MAX_DETAILS_LENGTH);
    expect(schemas.ErrorResponseDto.properties.error.enum).not.toContain('method_not_allowed');
    expect(spec.info.description).not.toMatch(/\|\s*405\s*\|/);
    expect(spec.info.description).toMatch(/HS256 with JWT_SECRET, or RS256\/ES256/);
    expect(spec.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const used = new Set(operationsOf(spec).flatMap(({ operation }) => operation.tags as string[]));
    expect(spec.tags.map((tag: { name: string }) => tag.name).sort()).toEqual([...used].sort());
    for (const tag of spec.tags) expect(tag.description).toBeTruthy();
    for (const { name, operation } of operationsOf(spec)) {
      expect(Object.keys(operation.responses), name).not.toContain('405');
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        expect(response.description, `${name} ${status}`).toBeTruthy();
      }
      // Swagger UI pre-fills examples into "Try it out": only an id of the demo data, nothing else.
      for (const parameter of operation.parameters ?? []) {
        const demoId = parameter.in === 'path' ? DEMO_EXAMPLE[parameter.name as keyof typeof DEMO_EXAMPLE] : undefined;
        expect(parameter.schema?.example, `${name} ${parameter.name}`).toBeUndefined();
        expect(parameter.example, `${name} ${parameter.name}`).toBe(demoId);
      }
    }
  });

  it('pre-fills "Try it out" with ids of the demo data, never the Swagger UI placeholder', async () => {
    const placeholder = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    expect(JSON.stringify(spec)).not.toContain(placeholder);
    // Swagger UI fills a request body from its schema: a uuid without an example becomes the placeholder.
    const demoIds = new Set<string>([
      ...Object.values(DEMO_IDS.users),
      ...Object.values(DEMO_IDS.projects),
      ...Object.values(DEMO_IDS.documentTypes),
      ...DEMO_IDS.documents,
      DEMO_IDS.userRole,
    ]);
    const uuids: { where: string; example: unknown }[] = [];
    const visit = (schema: Json | undefined, where: string, seen: Set<string>, example?: unknown): void => {
      if (!schema) return;
      if (typeof schema.$ref === 'string') {
        const ref = schema.$ref.split('/').pop()!;
        if (!seen.has(ref)) visit(spec.components.schemas[ref], where, new Set([...seen, ref]), example);
        return;
      }
      const own = schema.example ?? example;
      if (schema.format === 'uuid') uuids.push({ where, example: own });
      for (const [key, property] of Object.entries((schema.properties ?? {}) as Json))
        visit(property as Json, `${where}.${key}`, seen);
      if (schema.items) visit(schema.items, `${where}[]`, seen, Array.isArray(own) ? own[0] : undefined);
    };
    for (const { name, operation } of operationsOf(spec)) {
      for (const [type, media] of Object.entries((operation.requestBody?.content ?? {}) as Json)) {
        const examples = Object.values((media.examples ?? {}) as Json).map((example) => (example as Json).value);
        if (examples.length === 0) visit(media.schema, `${name} ${type}`, new Set());
        for (const example of examples) {
          for (const id of JSON.stringify(example).match(/[0-9a-f]{8}-[0-9a-f-]{27}/g) ?? [])
            expect(demoIds.has(id), `${name} example ${id}`).toBe(true);
        }
      }
    }
    expect(uuids.map(({ where }) => where)).toContain('POST /api/documents multipart/form-data.projectId');
    expect(uuids.filter(({ example }) => !demoIds.has(String(example)))).toEqual([]);
    // The examples work: alice reads the example document, and the first read-all example marks something.
    const token = await t.login('alice');
    const documentId = spec.paths['/api/documents/{documentId}'].get.parameters[0].example;
    expect(documentId).toBe(t.seed.documents[0].id);
    const read = await request(t.url).get(`/api/documents/${documentId}`).auth(token, { type: 'bearer' });
    expect(read.status).toBe(200);
    const readAll = spec.paths['/api/notifications/read-all'].post.requestBody.content['application/json'].examples;
    const first = Object.values(readAll as Json)[0] as Json;
    const marked = await request(t.url)
      .post('/api/notifications/read-all')
      .auth(token, { type: 'bearer' })
      .send(first.value);
    expect(marked.status).toBe(200);
    expect(marked.body.updated).toBeGreaterThan(0);
  });

  it('caps error details that echo client input, and says so in the document', async () => {
    const body = Object.fromEntries(Array.from({ length: 300 }, (_, index) => [`unknown_field_${index}`, 1]));
    const response = await request(t.url).post('/api/auth/login').send(body);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('validation_failed');
    expect(response.body.details.length).toBe(MAX_DETAILS_LENGTH);
    expect(response.body.details).toMatch(/^property unknown_field_0 should not exist; .*…$/);
  });

  it('answers 404 route_not_found for unknown routes whatever the body', async () => {
    for (const body of [undefined, '{}', 'not json']) {
      const call = request(t.url).put('/api/nothing/here');
      const response = body === undefined ? await call : await call.set('content-type', 'application/json').send(body);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'route_not_found', details: expect.any(String) });
      expect(response.headers['x-request-id']).toBeTruthy();
    }
  });

  it('has a response validator that reports what does not match', () => {
    const validator = new OpenApiResponseValidator(spec);
    const route = '/api/documents/:documentId';
    expect(
      validator.check('GET', '/api/documents/:documentId/history', 200, { 'x-request-id': 'r' }, { history: [] }),
    ).toEqual([]);
    expect(validator.check('PUT', route, 418, { 'x-request-id': 'r' }, {})).toEqual([
      expect.stringMatching(/^status 418 is not documented/),
    ]);
    expect(validator.check('PUT', route, 404, {}, { error: 'document_not_found', details: 'x', extra: 1 })).toEqual([
      'header X-Request-Id is missing',
      'body must NOT have additional properties: extra',
    ]);
    expect(validator.check('PUT', route, 200, { 'x-request-id': 'r' }, { document: {} })).toContain(
      'header etag is declared required but missing',
    );
    expect(
      validator.check(
        'PUT',
        route,
        503,
        { 'x-request-id': 'r', location: '/x' },
        { error: 'service_unavailable', details: 'x' },
      ),
    ).toEqual(['header location is sent but not declared', 'header retry-after is declared required but missing']);
  });
});

describe('Content-Security-Policy over plain HTTP and over TLS', () => {
  let plain: TestApp;
  let proxied: TestApp;
  beforeAll(async () => {
    plain = await createTestApp('sqlite');
    proxied = await createTestApp('sqlite', { TRUST_PROXY: 'true' });
  });
  afterAll(async () => {
    await plain?.close();
    await proxied?.close();
  });

  it('lets /docs load its assets over plain HTTP from any host name', async () => {
    for (const host of ['docs.test:8080', '192.0.2.10:3000']) {
      const response = await request(plain.url).get('/docs').set('host', host);
      expect(response.status).toBe(200);
      expect(response.headers['content-security-policy']).toMatch(/default-src 'self'/);
      expect(response.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
    }
    // X-Forwarded-Proto means nothing without TRUST_PROXY.
    const spoofed = await request(plain.url).get('/docs').set('x-forwarded-proto', 'https');
    expect(spoofed.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
  });

  it('keeps upgrade-insecure-requests for requests that came over TLS through a trusted proxy', async () => {
    const overTls = await request(proxied.url).get('/docs').set('x-forwarded-proto', 'https');
    expect(overTls.headers['content-security-policy']).toMatch(/upgrade-insecure-requests/);
    const overHttp = await request(proxied.url).get('/docs').set('x-forwarded-proto', 'http');
    expect(overHttp.headers['content-security-policy']).not.toMatch(/upgrade-insecure-requests/);
  });
});
