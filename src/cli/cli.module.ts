import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { databaseConfig, passwordHashConfig, seedConfig, storageConfig } from '../config/configuration.js';
import { ClockModule } from '../common/time/clock.module.js';
import { SCHEMA } from '../data-source.js';
import { DatabaseModule } from '../database/database.module.js';
import { UsersModule } from '../users/users.module.js';

/**
 * What the command-line tools need: the database, the users service and the seed settings. No HTTP
 * and no JWT keys, so they run in production without JWT_SECRET.
 */
@Module({
  imports: [
    ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: true,
      skipProcessEnv: true,
      load: [databaseConfig, passwordHashConfig, seedConfig, storageConfig],
    }),
    DatabaseModule.forRoot(SCHEMA),
    ClockModule,
    UsersModule,
  ],
})
export class CliModule {}
