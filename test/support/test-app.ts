import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module.js';
import { configureApp, createFastifyAdapter } from '../../src/app.setup.js';
import type { FastifyInstance } from 'fastify';
import { createNestLogger } from '../../src/common/http/logger.js';
import { Clock } from '../../src/common/time/clock.js';
import { buildConfiguration, CONFIG_NAMESPACES, type Configuration } from '../../src/config/configuration.js';
import { seedDemoData, type SeedSummary } from '../../src/seed/demo-seed.js';
import { FileStore } from '../../src/storage/file-store.js';
import { createTestBucket, storedBytes, type StoredBytes } from './object-storage.js';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './databases.js';
import { checkResponsesAgainstOpenApi, OpenApiResponseValidator } from './openapi-response-validator.js';

export const TEST_PASSWORD = 'Test-Password-For-E2E-1!';

export interface TestApp {
  kind: DatabaseKind;
  app: NestFastifyApplication;
  /** Base URL on 127.0.0.1; tests talk real HTTP to it. */
  url: string;
  config: Configuration;
  env: Record<string, string>;
  dataSource: DataSource;
  database: TestDatabase;
  seed: SeedSummary;
  /** The stored bytes, read and damaged behind the app's back (either driver). */
  stored: StoredBytes;
  user(username: string): SeedSummary['users'][number];
  /** Logs in over HTTP and returns the bearer token. */
  login(username: string, password?: string): Promise<string>;
  /** Stops the app and starts a new one on the same database (persistence checks). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Replaces the service's clock (see test/support/test-clock.ts). */
  clock?: Clock;
}

async function startApp(
  env: Record<string, string>,
  options: TestAppOptions,
): Promise<{ app: NestFastifyApplication; url: string; config: Configuration }> {
  // This app's own environment, validated as main.ts validates process.env; every config namespace
  // is overridden with it, so apps in one test process never share (or touch) process.env.
  const config = buildConfiguration(env);
  const builder = Test.createTestingModule({ imports: [AppModule] });
  for (const namespace of CONFIG_NAMESPACES)
    builder.overrideProvider(namespace.KEY).useValue(config[namespace.namespace]);
  if (options.clock) builder.overrideProvider(Clock).useValue(options.clock);
  const moduleRef = await builder.compile();
  const adapter = createFastifyAdapter(config);
  const app = moduleRef.createNestApplication<NestFastifyApplication>(adapter, {
    logger: createNestLogger(adapter.getInstance<FastifyInstance>()),
  });
  await configureApp(app, config.http);
  // Every response is checked against the app's own /docs-json (mismatches fail the test: see
  // openapi-response-check.setup.ts); the document is read once the app is up.
  const fastify: FastifyInstance = app.getHttpAdapter().getInstance();
  let validator: OpenApiResponseValidator | undefined;
  checkResponsesAgainstOpenApi(fastify, () => validator);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const documentResponse = await fastify.inject({ method: 'GET', url: '/docs-json' });
  validator = new OpenApiResponseValidator(documentResponse.json());
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}`, config };
}

/**
 * A real app on a fresh database of the given kind, migrated and seeded with demo data. With
 * `STORAGE_DRIVER: 's3'` in `extraEnv` (and no S3_BUCKET) its files go to a new bucket of the test
 * run's S3 engine, dropped with it.
 */
export async function createTestApp(
  kind: DatabaseKind,
  extraEnv: Record<string, string> = {},
  existingDatabase?: TestDatabase,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const database = existingDatabase ?? (await createTestDatabase(kind));
  // Each app has its own file store (a directory, or a bucket), removed with it.
  const storageDir = mkdtempSync(join(tmpdir(), 'dms-files-'));
  const bucket = extraEnv.STORAGE_DRIVER === 's3' && !extraEnv.S3_BUCKET ? await createTestBucket() : undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    STORAGE_DIR: storageDir,
    DATABASE_URL: database.url,
    DB_MIGRATIONS_RUN: 'true',
    JWT_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    // Suites log in many times from 127.0.0.1; the throttling suite sets its own limits.
    LOGIN_RATE_LIMIT_PER_IP: '100000',
    LOGIN_RATE_LIMIT_PER_USERNAME: '100000',
    ...bucket?.env,
    ...extraEnv,
  };
  let started = await startApp(env, options);
  // SEED_PASSWORD (e.g. the development default the Swagger examples use) replaces the test password.
  const seedPassword = extraEnv.SEED_PASSWORD ?? TEST_PASSWORD;
  const seed = await seedDemoData(started.app.get(DataSource), seedPassword, started.app.get(FileStore));
  const stored = storedBytes(started.config.storage, env);

  const testApp: TestApp = {
    kind,
    get app() {
      return started.app;
    },
    get url() {
      return started.url;
    },
    get config() {
      return started.config;
    },
    get dataSource() {
      return started.app.get(DataSource);
    },
    env,
    database,
    seed,
    stored,
    user(username) {
      const user = seed.users.find((candidate) => candidate.username === username);
      if (!user) throw new Error(`No seeded user ${username}`);
      return user;
    },
    async login(username, password = seedPassword) {
      const response = await fetch(`${started.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username, password }),
      });
      if (response.status !== 200) throw new Error(`login ${username} failed: ${response.status}`);
      return ((await response.json()) as { token: string }).token;
    },
    async restart() {
      await started.app.close();
      started = await startApp(env, options);
    },
    async close() {
      // Tests leave sockets open on purpose (stalled or half-sent uploads): end them, or the server's
      // close waits for Node's 60 s request timeout on each.
      (started.app.getHttpServer() as { closeAllConnections(): void }).closeAllConnections();
      await started.app.close();
      await database.drop();
      rmSync(storageDir, { recursive: true, force: true });
      stored.close();
      await bucket?.drop();
    },
  };
  return testApp;
}
