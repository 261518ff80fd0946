import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { EventsModule } from '../events/events.module.js';
import { LegalHoldsModule } from '../legal-holds/legal-holds.module.js';
import { SchedulingModule } from '../scheduling/scheduling.module.js';
import { RetentionApplication } from './entities/retention-application.entity.js';
import { RetentionRepository } from './retention.repository.js';
import { RetentionService } from './retention.service.js';

/** Document types' retention, applied by a scheduled job once per cluster (RetentionService). */
@Module({
  imports: [
    TypeOrmModule.forFeature([RetentionApplication]),
    AuditModule,
    DocumentsModule,
    EventsModule,
    LegalHoldsModule,
    SchedulingModule,
  ],
  providers: [RetentionRepository, RetentionService],
})
export class RetentionModule {}
