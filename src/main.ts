import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module.js';
import { configureApp, createFastifyAdapter } from './app.setup.js';
import { createLogger } from './common/http/logger.js';
import { ConfigError, loadAppConfig, loadDotEnvFile } from './config/app.config.js';
import { seedDemoDataIfEmpty } from './seed/demo-seed.js';

async function bootstrap(): Promise<void> {
  loadDotEnvFile();
  let config;
  try {
    config = loadAppConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config);
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, createFastifyAdapter(config), {
    logger,
    bufferLogs: true,
  });
  const draining = await configureApp(app, config);

  if (config.jwt.generated) {
    logger.warn('JWT_SECRET is not set: using a random secret, so tokens end when the process restarts.', 'Config');
  }
  if (config.seedDemo) {
    const summary = await seedDemoDataIfEmpty(app.get(DataSource), config);
    if (summary) {
      logger.log(
        `Demo data created: log in as ${summary.users.map((user) => user.username).join(', ')} with the password from SEED_PASSWORD (development default: see README).`,
        'Seed',
      );
    }
  }

  // SIGTERM/SIGINT: stop accepting, let in-flight requests finish, close the pool, exit 0;
  // exit 1 if that takes longer than the grace period.
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: finishing in-flight requests`, 'Shutdown');
    draining.start();
    setTimeout(() => {
      logger.error(`Shutdown took longer than ${config.shutdownGraceMs} ms; exiting anyway`, 'Shutdown');
      process.exit(1);
    }, config.shutdownGraceMs).unref();
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);

  await app.listen({ port: config.port, host: config.host });
  logger.log(`Listening on http://${config.host}:${config.port} (Swagger UI at /docs)`, 'Bootstrap');
}

void bootstrap();
