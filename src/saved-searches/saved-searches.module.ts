import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { DocumentsModule } from '../documents/documents.module.js';
import { EventsModule } from '../events/events.module.js';
import { SavedSearchMatcher } from './saved-search-matcher.js';
import { SavedSearchesController } from './saved-searches.controller.js';
import { SavedSearchesRepository } from './saved-searches.repository.js';
import { SavedSearchesService } from './saved-searches.service.js';

@Module({
  imports: [DocumentsModule, EventsModule, AuditModule],
  controllers: [SavedSearchesController],
  providers: [SavedSearchesService, SavedSearchesRepository, SavedSearchMatcher],
})
export class SavedSearchesModule {}
