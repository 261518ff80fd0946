import { Module } from '@nestjs/common';
import { ConfigModule, type ConfigType } from '@nestjs/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from './auth/auth.module.js';
import { appConfig } from './config/app.config.js';
import { buildDataSourceOptions } from './database/data-source-options.js';
import { DocumentsModule } from './documents/documents.module.js';
import { HealthModule } from './health/health.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { UsersModule } from './users/users.module.js';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, cache: true, load: [appConfig] }),
    TypeOrmModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: ConfigType<typeof appConfig>) => ({
        ...buildDataSourceOptions(config),
        migrationsRun: config.migrationsRun,
        retryAttempts: 3,
        retryDelay: 2000,
      }),
    }),
    UsersModule,
    AuthModule,
    DocumentsModule,
    NotificationsModule,
    HealthModule,
  ],
})
export class AppModule {}
