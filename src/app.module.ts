import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AuthModule } from './auth/auth.module.js';
import { CONFIG_NAMESPACES } from './config/configuration.js';
import { SCHEMA } from './data-source.js';
import { DatabaseModule } from './database/database.module.js';
import { DocumentsModule } from './documents/documents.module.js';
import { HealthModule } from './health/health.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { UsersModule } from './users/users.module.js';

@Module({
  imports: [
    // The namespaces come from the environment validated once (src/config/configuration.ts), which
    // also reads ./.env; ConfigService hands out those namespaces and never raw process.env.
    ConfigModule.forRoot({
      isGlobal: true,
      ignoreEnvFile: true,
      skipProcessEnv: true,
      load: [...CONFIG_NAMESPACES],
    }),
    DatabaseModule.forRoot(SCHEMA),
    UsersModule,
    AuthModule,
    DocumentsModule,
    NotificationsModule,
    HealthModule,
  ],
})
export class AppModule {}
