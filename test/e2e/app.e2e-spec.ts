import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_ERROR_CODES } from '../../src/common/errors/error-response.dto.js';
import { databasesUnderTest } from '../support/databases.js';
import { createTestApp, type TestApp } from '../support/test-app.js';

describe.each(databasesUnderTest())('the application on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers unknown routes and methods with {error, details}', async () => {
    for (const [method, path] of [
      ['get', '/nope'],
      ['get', '/api/documents/a/b/c'],
      ['delete', '/api/notifications'],
      ['get', '/api/auth/login'],
    ] as const) {
      const response = await request(t.url)[method](path);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'route_not_found', details: expect.any(String) });
    }
  });

  it('answers body-level errors on login with {error, details}', async () => {
    const malformed = await request(t.url)
      .post('/api/auth/login')
      .set('content-type', 'application/json')
      .send('{"username":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'invalid_json', details: expect.any(String) });

    const text = await request(t.url).post('/api/auth/login').set('content-type', 'text/plain').send('username=alice');
    expect(text.status).toBe(415);
    expect(text.body).toEqual({ error: 'unsupported_media_type', details: expect.any(String) });

    const form = await request(t.url).post('/api/auth/login').type('form').send({ username: 'alice', password: 'x' });
    expect(form.status).toBe(415);

    const huge = await request(t.url)
      .post('/api/auth/login')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ username: 'alice', password: 'x'.repeat(1024 * 1024 + 10) }));
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ error: 'payload_too_large', details: expect.any(String) });

    const array = await request(t.url)
      .post('/api/auth/login')
      .send([{ username: 'alice' }]);
    expect(array.status).toBe(400);
    expect(array.body.error).toBe('validation_failed');
  });

  it('sets security headers and a request id', async () => {
    const response = await request(t.url).get('/health/live');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBeDefined();
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // No CORS unless origins are configured.
    const preflight = await request(t.url).get('/health/live').set('origin', 'https://evil.example');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();

    const echoed = await request(t.url).get('/health/live').set('x-request-id', 'client-abc.123');
    expect(echoed.headers['x-request-id']).toBe('client-abc.123');
    const unsafe = await request(t.url).get('/health/live').set('x-request-id', 'bad id\twith spaces');
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports readiness from the database', async () => {
    const response = await request(t.url).get('/health/ready');
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('ok');
    expect(response.body.details.database.status).toBe('up');
  });

  it('serves Swagger UI and an OpenAPI document that describes every operation', async () => {
    const ui = await request(t.url).get('/docs');
    expect(ui.status).toBe(200);
    expect(ui.text).toMatch(/swagger-ui/i);

    const { body: spec, status } = await request(t.url).get('/docs-json');
    expect(status).toBe(200);
    expect(spec.openapi).toMatch(/^3\./);
    expect(spec.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    // Every code a client can meet (405 is never answered: an unknown method is 404 route_not_found).
    expect(spec.components.schemas.ErrorResponseDto.properties.error.enum.sort()).toEqual(
      [...DOCUMENTED_ERROR_CODES].sort(),
    );

    const login = spec.paths['/api/auth/login'].post;
    expect(Object.keys(login.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '408',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    expect(login.security ?? []).toEqual([]);

    const update = spec.paths['/api/documents/{documentId}'].put;
    expect(Object.keys(update.responses).sort()).toEqual(
      ['200', '400', '401', '403', '404', '408', '409', '412', '413', '415', '423', '500', '503'].sort(),
    );
    expect(update.security).toEqual([{ bearer: [] }]);
    expect(update.parameters.find((p: { name: string }) => p.name === 'documentId').schema.format).toBe('uuid');
    const updateBody = spec.components.schemas.UpdateDocumentDto;
    expect(Object.keys(updateBody.properties).sort()).toEqual([
      'description',
      'documentTypeId',
      'fields',
      'metadata',
      'tags',
      'title',
    ]);
    expect(updateBody.required ?? []).toEqual([]);
    expect(updateBody.properties.title).toMatchObject({ minLength: 1, maxLength: 255 });
    for (const field of ['title', 'description', 'tags'])
      expect(updateBody.properties[field].description).toMatch(/characters \(Unicode code points\)/);
    expect(spec.components.schemas.LoginDto.properties.username.description).toMatch(/Unicode code points/);

    const list = spec.paths['/api/notifications'].get;
    expect(Object.keys(list.responses).sort()).toEqual(['200', '400', '401', '500', '503']);
    const params = Object.fromEntries(list.parameters.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(params).sort()).toEqual(['cursor', 'limit', 'page', 'status', 'type', 'unreadOnly']);
    expect(params.status.schema.enum).toEqual(['pending', 'sent', 'failed', 'read']);
    expect(params.type.schema.enum).toEqual(['email', 'sms', 'push', 'in_app']);
    expect(params.limit.schema).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(params.page.schema).toMatchObject({ minimum: 1, default: 1 });
    expect(spec.components.schemas.NotificationDto.properties.readAt.nullable).toBe(true);
  });

  it('keeps data across a restart', async () => {
    const alice = t.user('alice');
    const documentId = t.seed.documents.find((document) => document.uploadedBy === alice.id)!.id;
    let token = await t.login('alice');
    const update = await request(t.url)
      .put(`/api/documents/${documentId}`)
      .set('authorization', `Bearer ${token}`)
      .send({ title: 'Survives restarts', tags: ['durable'] });
    expect(update.body).toHaveProperty('document');
    expect(update.status).toBe(200);

    await t.restart();

    token = await t.login('alice');
    const after = await request(t.url)
      .put(`/api/documents/${documentId}`)
      .set('authorization', `Bearer ${token}`)
      .send({});
    expect(after.status).toBe(200);
    expect(after.body.document).toMatchObject({ title: 'Survives restarts', tags: ['durable'] });
    expect(after.body.document.updatedAt).toBe(update.body.document.updatedAt);
    const list = await request(t.url).get('/api/notifications').set('authorization', `Bearer ${token}`);
    expect(list.body.pagination.total).toBe(t.seed.notifications[alice.id]);
  });

  it('answers an unexpected failure with a bare 500 that leaks nothing', async () => {
    const token = await t.login('alice');
    // Break the schema under the running app: the next list query fails inside the driver.
    await t.dataSource.query('DROP TABLE notification_counts');
    const response = await request(t.url).get('/api/notifications').set('authorization', `Bearer ${token}`);
    expect(response.status).toBe(500);
    expect(response.body).toEqual({
      error: 'internal_error',
      details: 'An unexpected error occurred; it has been logged.',
    });
    expect(response.text).not.toMatch(/SELECT|notification_counts|at |\.ts|QueryFailed/);
    // The process stays up.
    expect((await request(t.url).get('/health/live')).status).toBe(200);
  });
});

describe('transport-level rejections', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers oversized headers, over-long path parameters and bad URLs with {error, details}', async () => {
    const token = await t.login('alice');
    const huge = await fetch(`${t.url}/api/notifications`, {
      headers: { authorization: `Bearer ${'x'.repeat(70_000)}` },
    });
    expect(huge.status).toBe(431);
    expect(await huge.json()).toEqual({ error: 'headers_too_large', details: expect.any(String) });

    const longId = await request(t.url)
      .put(`/api/documents/${'a'.repeat(500)}`)
      .set('authorization', `Bearer ${token}`)
      .send({});
    expect(longId.status).toBe(400);
    expect(longId.body).toEqual({ error: 'validation_failed', details: 'A path parameter is too long.' });

    const badUrl = await request(t.url).put('/api/documents/%E0%A4%A').set('authorization', `Bearer ${token}`).send({});
    expect(badUrl.status).toBe(400);
    expect(Object.keys(badUrl.body).sort()).toEqual(['details', 'error']);
  });
});
