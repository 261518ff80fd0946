import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AuthModule } from './auth/auth.module.js';
import { appConfig } from './config/app.config.js';
import { SCHEMA } from './data-source.js';
import { DatabaseModule } from './database/database.module.js';
import { DocumentsModule } from './documents/documents.module.js';
import { HealthModule } from './health/health.module.js';
import { NotificationsModule } from './notifications/notifications.module.js';
import { UsersModule } from './users/users.module.js';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, cache: true, load: [appConfig] }),
    DatabaseModule.forRoot(SCHEMA),
    UsersModule,
    AuthModule,
    DocumentsModule,
    NotificationsModule,
    HealthModule,
  ],
})
export class AppModule {}
