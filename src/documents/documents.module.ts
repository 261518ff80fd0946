import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentParticipants } from './document-participants.service.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentsRepository } from './documents.repository.js';
import { DocumentsService } from './documents.service.js';
import { DocumentHistory } from './entities/document-history.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([DocumentHistory]), ProjectsModule, EventsModule],
  controllers: [DocumentsController],
  providers: [DocumentsService, DocumentsRepository, DocumentAccessPolicy, DocumentParticipants],
  exports: [DocumentParticipants],
})
export class DocumentsModule {}
