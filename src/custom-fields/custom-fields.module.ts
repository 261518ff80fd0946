import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { CustomFieldsController } from './custom-fields.controller.js';
import { CustomFieldsRepository } from './custom-fields.repository.js';
import { CustomFieldsService } from './custom-fields.service.js';
import { DocumentFieldValue } from './entities/document-field-value.entity.js';
import { DocumentField } from './entities/document-field.entity.js';

/**
 * Typed custom fields per document type: /api/document-types/{id}/fields (documentTypes:manage to
 * change them), and the documents' values through DocumentFields, so documents never import this.
 */
@Module({
  imports: [TypeOrmModule.forFeature([DocumentField, DocumentFieldValue]), AuditModule, DocumentsModule],
  controllers: [CustomFieldsController],
  providers: [CustomFieldsService, CustomFieldsRepository],
})
export class CustomFieldsModule {}
