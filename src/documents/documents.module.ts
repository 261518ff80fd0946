import { Module } from '@nestjs/common';
import { storageConfig, type StorageConfig } from '../config/configuration.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { DocumentAccessPolicy } from './document-access.policy.js';
import { DocumentFilesController } from './document-files.controller.js';
import { DocumentFilesService } from './document-files.service.js';
import { DocumentParticipants } from './document-participants.service.js';
import { DocumentVersionsRepository } from './document-versions.repository.js';
import { DocumentsController } from './documents.controller.js';
import { DocumentsRepository } from './documents.repository.js';
import { DocumentsService } from './documents.service.js';
import { DocumentHistory } from './entities/document-history.entity.js';
import { FILE_STORE_ROOT, FileStore } from '../storage/file-store.js';
import { TrashPurgeScheduler } from './trash-purge.scheduler.js';

@Module({
  imports: [TypeOrmModule.forFeature([DocumentHistory]), ProjectsModule, EventsModule],
  controllers: [DocumentFilesController, DocumentsController],
  providers: [
    DocumentsService,
    DocumentsRepository,
    DocumentAccessPolicy,
    DocumentParticipants,
    TrashPurgeScheduler,
    DocumentFilesService,
    DocumentVersionsRepository,
    // The content-addressed store under STORAGE_DIR; its onModuleInit removes what a crash left in tmp/.
    { provide: FILE_STORE_ROOT, inject: [storageConfig.KEY], useFactory: (storage: StorageConfig) => storage.dir },
    FileStore,
  ],
  exports: [DocumentParticipants, DocumentsService],
})
export class DocumentsModule {}
