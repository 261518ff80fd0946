import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { DocumentLocksController } from './document-locks.controller.js';
import { DocumentLocksRepository } from './document-locks.repository.js';
import { DocumentLocksService } from './document-locks.service.js';
import { DocumentLock } from './entities/document-lock.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([DocumentLock]), DocumentsModule, AuditModule],
  controllers: [DocumentLocksController],
  providers: [DocumentLocksService, DocumentLocksRepository],
})
export class DocumentLocksModule {}
