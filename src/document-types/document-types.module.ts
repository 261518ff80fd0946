import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentTypesController } from './document-types.controller.js';
import { DocumentTypesRepository } from './document-types.repository.js';
import { DocumentTypesService } from './document-types.service.js';
import { DocumentType } from './entities/document-type.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([DocumentType]), AuditModule],
  controllers: [DocumentTypesController],
  providers: [DocumentTypesService, DocumentTypesRepository],
  exports: [DocumentTypesService],
})
export class DocumentTypesModule {}
