import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { DocumentsModule } from '../documents/documents.module.js';
import { ContentAnswersInterceptor } from './content-answers.interceptor.js';
import { ContentReindex } from './content-reindex.js';
import { ContentController } from './content.controller.js';
import { ContentRepository } from './content.repository.js';
import { ContentService } from './content.service.js';
import { ContentWorker } from './content.worker.js';
import { PreviewFileReferences } from './preview-file-references.js';

/** Text extraction, OCR and content search (README "Content and search"). */
@Module({
  imports: [DocumentsModule],
  controllers: [ContentController],
  providers: [
    ContentService,
    ContentRepository,
    ContentReindex,
    ContentWorker,
    PreviewFileReferences,
    { provide: APP_INTERCEPTOR, useClass: ContentAnswersInterceptor },
  ],
  exports: [ContentService],
})
export class ContentModule {}
