import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { storageConfig } from '../config/configuration.js';
import { EventsModule } from '../events/events.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentParticipants } from './document-participants.service.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentsRepository } from './documents.repository.js';
import { DocumentsService } from './documents.service.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { FILE_STORE_ROOT, FileStore } from './storage/file-store.js';
import { TrashPurgeScheduler } from './trash-purge.scheduler.js';

@Module({
  imports: [TypeOrmModule.forFeature([DocumentHistory]), ProjectsModule, EventsModule],
  controllers: [DocumentsController],
  providers: [
    DocumentsService,
    DocumentsRepository,
    DocumentAccessPolicy,
    DocumentParticipants,
    TrashPurgeScheduler,
    // The file store (doc-files wires the same two providers; keep one copy when merging).
    { provide: FILE_STORE_ROOT, inject: [storageConfig.KEY], useFactory: (storage: { dir: string }) => storage.dir },
    FileStore,
  ],
  exports: [DocumentParticipants, DocumentsService],
})
export class DocumentsModule {}
