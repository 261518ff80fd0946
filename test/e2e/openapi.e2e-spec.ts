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
import { ERROR_EXAMPLE_DETAILS } from '../../src/common/errors/error-examples.js';
import { DOCUMENTED_ERROR_CODES } from '../../src/common/errors/error-response.dto.js';
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
    const seen = new Map<string, number>();
    for (const { name, operation } of operationsOf(spec)) {
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        const json = response.content?.['application/json'];
        if (json?.schema?.$ref !== '#/components/schemas/ErrorResponseDto') continue;
        const examples: { value: { error: string; details: string } }[] = Object.values(json.examples ?? {});
        expect(examples.length, `${name} ${status}`).toBeGreaterThan(0);
        for (const { value } of examples) {
          expect(ERROR_STATUS[value.error as keyof typeof ERROR_STATUS], `${name} ${status} ${value.error}`).toBe(
            Number(status),
          );
          expect(value.details).toBe(ERROR_EXAMPLE_DETAILS[value.error as keyof typeof ERROR_STATUS]);
          seen.set(value.details, Number(status));
        }
      }
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
      // Swagger UI pre-fills examples into "Try it out": a parameter example would be sent as a value.
      for (const parameter of operation.parameters ?? []) {
        expect(parameter.example ?? parameter.schema?.example, `${name} ${parameter.name}`).toBeUndefined();
      }
    }
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
