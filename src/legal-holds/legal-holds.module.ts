import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { LegalHoldDocument } from './entities/legal-hold-document.entity.js';
import { LegalHold } from './entities/legal-hold.entity.js';
import { LegalHoldsController } from './legal-holds.controller.js';
import { LegalHoldsRepository } from './legal-holds.repository.js';
import { LegalHoldsService } from './legal-holds.service.js';

/**
 * Legal holds: /api/legal-holds (legalHolds:manage), and the document write guard that keeps
 * held documents from removal. LegalHoldsService.held tells other features (retention) what to skip.
 */
@Module({
  imports: [TypeOrmModule.forFeature([LegalHold, LegalHoldDocument]), AuditModule, DocumentsModule],
  controllers: [LegalHoldsController],
  providers: [LegalHoldsService, LegalHoldsRepository],
  exports: [LegalHoldsService],
})
export class LegalHoldsModule {}
