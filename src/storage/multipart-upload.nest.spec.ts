/**
 * The storage building blocks inside Nest 12 on @nestjs/platform-fastify, wired as the documents
 * feature will wire them: FileStore by its root token (temp files swept at start-up), the plugin
 * registered through the Nest application, the upload route marked with @RouteConfig, errors
 * through the service's own filter, and the JSON-only guard opened for that route alone.
 */
import 'reflect-metadata';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fastifyMultipart from '@fastify/multipart';
import { Body, Controller, Module, Post, Put, Req, Res } from '@nestjs/common';
import { FastifyAdapter, RouteConfig, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AllExceptionsFilter } from '../common/errors/all-exceptions.filter.js';
import { rejectBeforeBody } from '../common/http/request-guards.js';
import { FileStore } from './file-store.js';
import { LocalFileStore } from './local-file-store.js';
import {
  isMultipartUploadRoute,
  MULTIPART_PLUGIN_OPTIONS,
  MULTIPART_UPLOAD_ROUTE,
  readMultipartUpload,
} from './multipart-upload.js';

@Controller()
class UploadController {
  constructor(private readonly store: FileStore) {}

  @Post('upload')
  @RouteConfig(MULTIPART_UPLOAD_ROUTE)
  async upload(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const upload = await readMultipartUpload(request, reply, this.store, { maxFileBytes: 1024 });
    try {
      return { fileName: upload.fileName, fields: upload.fields, ...(await upload.file.commit()) };
    } finally {
      await upload.file.abort();
    }
  }

  @Put('json')
  json(@Body() body: unknown) {
    return { received: body };
  }
}

describe('upload building blocks in a Nest 12 Fastify application', () => {
  let root: string;
  let app: NestFastifyApplication;
  let base: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'multipart-nest-'));
    // What a crashed process would leave behind.
    await mkdir(join(root, 'tmp'));
    await writeFile(join(root, 'tmp', `nest-test.${'0'.repeat(32)}.tmp`), 'half an upload');

    @Module({
      controllers: [UploadController],
      providers: [{ provide: FileStore, useFactory: () => new LocalFileStore(root, 'nest-test') }],
    })
    class UploadModule {}

    const moduleRef = await Test.createTestingModule({ imports: [UploadModule] }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter(), { logger: false });
    await app.register(fastifyMultipart, MULTIPART_PLUGIN_OPTIONS);
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRequest', (request, _reply, done) => {
        done(isMultipartUploadRoute(request) ? undefined : rejectBeforeBody(request));
      });
    app.useGlobalFilters(new AllExceptionsFilter());
    await app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await app.close();
    await rm(root, { recursive: true, force: true });
  });

  it('swept tmp/ at start-up', async () => {
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('stores an upload on the route marked with RouteConfig', async () => {
    const form = new FormData();
    form.append('title', 'From Nest');
    form.append('file', new Blob(['hello from nest']), 'nest.txt');
    const response = await fetch(`${base}/upload`, { method: 'POST', body: form });

    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ fileName: 'nest.txt', fields: { title: 'From Nest' }, size: 15 });
  });

  it('answers a bad upload with {error, details} through the service filter', async () => {
    const form = new FormData();
    form.append('file', new Blob([]), 'empty.txt');
    const response = await fetch(`${base}/upload`, { method: 'POST', body: form });

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'validation_failed', details: 'The file is empty.' });
  });

  it('answers an upload over the limit with 413 payload_too_large', async () => {
    const form = new FormData();
    form.append('file', new Blob([Buffer.alloc(1025)]), 'big.bin');
    const response = await fetch(`${base}/upload`, { method: 'POST', body: form });

    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'payload_too_large' });
    expect(await readdir(join(root, 'tmp'))).toEqual([]);
  });

  it('keeps refusing multipart on a JSON route with 415', async () => {
    const form = new FormData();
    form.append('title', 'x');
    const response = await fetch(`${base}/json`, { method: 'PUT', body: form });

    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: 'unsupported_media_type' });
  });
});
