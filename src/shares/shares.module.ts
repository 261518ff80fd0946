import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { LoginThrottleModule } from '../auth/login-throttle/login-throttle.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { EventsModule } from '../events/events.module.js';
import { UsersModule } from '../users/users.module.js';
import { ShareLink } from './entities/share-link.entity.js';
import { ShareDownloads } from './share-downloads.js';
import { PublicSharesController } from './public-shares.controller.js';
import { SharesController } from './shares.controller.js';
import { SharesRepository } from './shares.repository.js';
import { SharesService } from './shares.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([ShareLink]),
    DocumentsModule,
    EventsModule,
    AuditModule,
    UsersModule,
    LoginThrottleModule,
  ],
  controllers: [SharesController, PublicSharesController],
  providers: [SharesService, SharesRepository, ShareDownloads],
})
export class SharesModule {}
