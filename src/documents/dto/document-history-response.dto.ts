import { ApiProperty } from '@nestjs/swagger';
import {
  DOCUMENT_HISTORY_ACTIONS,
  type DocumentHistory,
  type DocumentHistoryAction,
} from '../entities/document-history.entity.js';

const HISTORY_CHANGE_SCHEMA = {
  type: 'object' as const,
  properties: { from: { description: 'Value before the change' }, to: { description: 'Value after the change' } },
  required: ['from', 'to'],
  additionalProperties: false,
};

export class DocumentHistoryEntryDto {
  @ApiProperty({ format: 'uuid', maxLength: 36 })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36 })
  documentId: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, description: 'User who made the change' })
  changedBy: string;

  @ApiProperty({ format: 'date-time', maxLength: 30 })
  changedAt: string;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 2_147_483_647,
    description: 'Row version (ETag value) the change produced',
  })
  rowVersion: number;

  @ApiProperty({ enum: DOCUMENT_HISTORY_ACTIONS, example: 'updated', description: 'What the entry records' })
  action: DocumentHistoryAction;

  @ApiProperty({
    type: 'object',
    // The fields a change can record (metadata, custom fields, type, status, trash, file version); each holds its old and new value.
    properties: Object.fromEntries(
      [
        'title',
        'description',
        'tags',
        'metadata',
        'fields',
        'documentTypeId',
        'status',
        'deletedAt',
        'deletedBy',
        'currentVersion',
        'fileName',
        'fileSize',
        'mimeType',
        'sha256',
      ].map((field) => [field, HISTORY_CHANGE_SCHEMA]),
    ),
    additionalProperties: false,
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
  @ApiProperty({ type: [DocumentHistoryEntryDto], maxItems: 500, description: 'Newest first, at most 500' })
  history: DocumentHistoryEntryDto[];
}
