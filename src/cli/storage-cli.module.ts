import { Global, Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { ContentRepository } from '../content/content.repository.js';
import { PreviewFileReferences } from '../content/preview-file-references.js';
import { httpConfig } from '../config/configuration.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { LegalHoldsModule } from '../legal-holds/legal-holds.module.js';
import { JobsModule } from '../jobs/jobs.module.js';
import { CliModule } from './cli.module.js';

/** REQUEST_TIMEOUT_MS, which tells the file collector when an upload in flight is stale. */
@Global()
@Module({ imports: [ConfigModule.forFeature(httpConfig)], exports: [ConfigModule] })
class UploadDeadlineModule {}

/**
 * What the storage CLIs (trash:purge, storage:verify) need: the CLIs' module (database,
 * STORAGE_DIR; its one DatabaseModule.forRoot, so no second data source named "default") and the
 * documents feature with its file store, legal holds (so the purge skips held documents) and the
 * previews' file references (so the collector spares the files previews name).
 * No HTTP is served, no JWT keys are needed.
 */
// JobsModule: documents queue content extraction jobs when versions are added (CliModule has the clock).
@Module({
  imports: [CliModule, UploadDeadlineModule, JobsModule, DocumentsModule, LegalHoldsModule],
  providers: [ContentRepository, PreviewFileReferences],
})
export class StorageCliModule {}
