import { ApiProperty } from '@nestjs/swagger';
import {
  DOCUMENT_HISTORY_ACTIONS,
  type DocumentHistory,
  type DocumentHistoryAction,
} from '../entities/document-history.entity.js';

export class DocumentHistoryEntryDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  documentId: string;

  @ApiProperty({ format: 'uuid', description: 'User who made the change' })
  changedBy: string;

  @ApiProperty({ format: 'date-time' })
  changedAt: string;

  @ApiProperty({ type: 'integer', description: 'Row version (ETag value) the change produced' })
  rowVersion: number;

  @ApiProperty({ enum: DOCUMENT_HISTORY_ACTIONS, example: 'updated', description: 'What the entry records' })
  action: DocumentHistoryAction;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'object', properties: { from: {}, to: {} } },
    example: { title: { from: 'Draft contract', to: 'Q3 supplier contract' } },
    description: 'Changed fields only, each with its old and new value.',
  })
  changes: Record<string, { from: unknown; to: unknown }>;

  static from(entry: DocumentHistory): DocumentHistoryEntryDto {
    return {
      id: entry.id,
      documentId: entry.documentId,
      changedBy: entry.changedBy,
      changedAt: entry.changedAt.toISOString(),
      rowVersion: entry.rowVersion,
      action: entry.action,
      changes: entry.changes,
    };
  }
}

export class DocumentHistoryResponseDto {
  @ApiProperty({ type: [DocumentHistoryEntryDto], description: 'Newest first' })
  history: DocumentHistoryEntryDto[];
}
