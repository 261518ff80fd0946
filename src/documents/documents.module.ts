import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentsService } from './documents.service.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { DocumentType } from './entities/document-type.entity.js';
import { Document } from './entities/document.entity.js';
import { Project } from './entities/project.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([Document, DocumentHistory, Project, DocumentType])],
  controllers: [DocumentsController],
  providers: [DocumentsService, DocumentAccessPolicy],
})
export class DocumentsModule {}
