import { Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module.js';
import { EventsModule } from '../events/events.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { SchedulingModule } from '../scheduling/scheduling.module.js';
import { STORAGE_PROVIDERS } from '../storage/storage.providers.js';
import { FileStore } from '../storage/file-store.js';
import { StoredFileReferences, StoredFiles } from '../storage/stored-files.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentCounts } from './document-counts.repository.js';
import { DocumentFields } from './document-fields.js';
import { DocumentFilesController } from './document-files.controller.js';
import { DocumentFilesService } from './document-files.service.js';
import { DocumentParticipantsRepository } from './document-participants.repository.js';
import { DocumentParticipants } from './document-participants.service.js';
import { DocumentSearchRepository } from './document-search.repository.js';
import { DocumentTrashController } from './document-trash.controller.js';
import { DocumentTrashService } from './document-trash.service.js';
import { DocumentVersionsRepository } from './document-versions.repository.js';
import { DocumentWriteGuards } from './document-write-guards.js';
import { DocumentWrites } from './document-writes.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentsRepository } from './documents.repository.js';
import { DocumentsService } from './documents.service.js';
import { Document } from './entities/document.entity.js';
import { TrashPurgeScheduler } from './trash-purge.scheduler.js';

@Module({
  imports: [TypeOrmModule.forFeature([Document]), ProjectsModule, EventsModule, AuditModule, SchedulingModule],
  controllers: [DocumentsController, DocumentFilesController, DocumentTrashController],
  providers: [
    DocumentsService,
    DocumentFilesService,
    DocumentTrashService,
    DocumentsRepository,
    DocumentCounts,
    DocumentSearchRepository,
    DocumentVersionsRepository,
    DocumentWrites,
    DocumentWriteGuards,
    DocumentFields,
    DocumentAccessPolicy,
    DocumentParticipants,
    DocumentParticipantsRepository,
    TrashPurgeScheduler,
    ...STORAGE_PROVIDERS,
  ],
  // FileStore, StoredFiles, StoredFileReferences: content reads the versions' files, stores previews.
  exports: [
    DocumentParticipants,
    DocumentTrashService,
    DocumentsService,
    DocumentWriteGuards,
    DocumentFields,
    DocumentWrites,
    DocumentAccessPolicy,
    DocumentFilesService,
    FileStore,
    StoredFiles,
    StoredFileReferences,
  ],
})
export class DocumentsModule implements OnModuleInit {
  constructor(
    private readonly references: StoredFileReferences,
    private readonly documents: DocumentsRepository,
  ) {}

  // Document versions name stored files: the collector asks them before removing one.
  onModuleInit(): void {
    this.references.register(this.documents);
  }
}
