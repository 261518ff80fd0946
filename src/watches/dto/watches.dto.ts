import { ApiProperty } from '@nestjs/swagger';
import { DOCUMENT_WATCH_STATES, type DocumentWatchState } from '../entities/document-watch.entity.js';
import { WATCHES_LISTED } from '../watches.repository.js';

export class DocumentWatchDto {
  @ApiProperty({ format: 'uuid', example: '0f8fad5b-d9cb-469f-a165-70867728950e' })
  documentId: string;

  @ApiProperty({ maxLength: 255, example: 'Quarterly report' })
  title: string;

  @ApiProperty({
    enum: DOCUMENT_WATCH_STATES,
    description: 'watching: hears of every event of the document; muted: hears of none',
    example: 'watching',
  })
  state: DocumentWatchState;

  @ApiProperty({ format: 'date-time', description: 'When the state was set' })
  since: string;
}

export class ProjectWatchDto {
  @ApiProperty({ format: 'uuid', example: '7c9e6679-7425-40de-944b-e07fc1f90ae7' })
  projectId: string;

  @ApiProperty({ maxLength: 255, example: 'Apollo' })
  name: string;

  @ApiProperty({ format: 'date-time', description: 'When the watch began' })
  since: string;
}

export class WatchesResponseDto {
  @ApiProperty({
    type: [DocumentWatchDto],
    maxItems: WATCHES_LISTED,
    description: `Documents watched or muted, newest first (at most ${WATCHES_LISTED})`,
  })
  documents: DocumentWatchDto[];

  @ApiProperty({
    type: [ProjectWatchDto],
    maxItems: WATCHES_LISTED,
    description: `Projects watched, newest first (at most ${WATCHES_LISTED})`,
  })
  projects: ProjectWatchDto[];
}
