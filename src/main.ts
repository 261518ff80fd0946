import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance } from 'fastify';
import { DataSource } from 'typeorm';
import { FileStore } from './storage/file-store.js';
import { AppModule } from './app.module.js';
import { configureApp, createFastifyAdapter } from './app.setup.js';
import { createNestLogger } from './common/http/logger.js';
import { ConfigError } from './config/config-error.js';
import { loadConfiguration, type Configuration } from './config/configuration.js';
import { demoLogins, demoPasswordNote, seedDemoDataIfEmpty } from './seed/demo-seed.js';

/** Where a person on this machine reaches the service (0.0.0.0 listens everywhere, localhost is one of them). */
function publicBaseUrl(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

async function bootstrap(): Promise<void> {
  // The environment is read and validated here, once: the Fastify adapter needs the body limit and
  // the logger before the app exists. AppModule's ConfigModule hands the app these same objects.
  let config: Configuration;
  try {
    config = loadConfiguration();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const adapter = createFastifyAdapter(config);
  const logger = createNestLogger(adapter.getInstance<FastifyInstance>());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, { logger, abortOnError: false });
  const draining = await configureApp(app, config.http);

  if (config.jwt.generated) {
    logger.warn('JWT_SECRET is not set: using a random secret, so tokens end when the process restarts.', 'Config');
  }
  const seeded = config.seed.demo
    ? await seedDemoDataIfEmpty(app.get(DataSource), config.seed, app.get(FileStore))
    : undefined;

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the pool, exit 0;
  // exit 1 if that takes longer than the grace period.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: finishing in-flight requests`, 'Shutdown');
    draining.start();
    setTimeout(() => {
      logger.error(`Shutdown took longer than ${config.app.shutdownGraceMs} ms; exiting anyway`, 'Shutdown');
      process.exit(1);
    }, config.app.shutdownGraceMs).unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);

  await app.listen({ port: config.app.port, host: config.app.host });
  const base = publicBaseUrl(config.app.host, (app.getHttpServer().address() as AddressInfo).port);
  logger.log({ msg: `Listening on ${base} (Swagger UI at ${base}/docs)`, docs: `${base}/docs` }, 'Bootstrap');
  if (seeded) {
    // The development default is printed so the README walkthrough can be copied; SEED_PASSWORD never is.
    const password = config.seed.developmentDefault ? config.seed.password : undefined;
    logger.log(
      {
        msg: `Demo data created: open ${base}/docs and log in as a user below with ${demoPasswordNote(config.seed)}`,
        docs: `${base}/docs`,
        password,
      },
      'Seed',
    );
    for (const login of demoLogins(seeded)) {
      logger.log(
        {
          msg: `Demo user ${login.username} (${login.roles.join(', ')}): a document to update is ${login.documentId}`,
          ...login,
        },
        'Seed',
      );
    }
  }
}

bootstrap().catch((error: unknown) => {
  // A start-up failure after the configuration (e.g. the database unreachable): one line, no stack.
  const { name, message } = error instanceof Error ? error : new Error(String(error));
  console.error(`Start-up failed: ${name}: ${message}`);
  process.exit(1);
});
