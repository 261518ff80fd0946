import { Module } from '@nestjs/common';
import { DocumentsModule } from '../documents/documents.module.js';
import { ProjectsModule } from '../projects/projects.module.js';
import { WatchesController } from './watches.controller.js';
import { WatchesRepository } from './watches.repository.js';
import { WatchesService } from './watches.service.js';

/** Watching and muting; exports the repository the notifications dispatcher reads watchers from. */
@Module({
  imports: [DocumentsModule, ProjectsModule],
  controllers: [WatchesController],
  providers: [WatchesRepository, WatchesService],
  exports: [WatchesRepository],
})
export class WatchesModule {}
