import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../common/pagination/pagination.dto.js';
import type { DocumentVersion } from '../entities/document-version.entity.js';

export class DocumentVersionDto {
  @ApiProperty({ type: 'integer', format: 'int32', minimum: 1, maximum: 2_147_483_647, example: 2 })
  version: number;

  @ApiProperty({ example: 'contract-q3-signed.pdf', minLength: 1, maxLength: 255 })
  fileName: string;

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    maximum: 1_099_511_627_776,
    example: 482133,
    description: 'Bytes',
  })
  fileSize: number;

  @ApiProperty({ example: 'application/pdf', maxLength: 127 })
  mimeType: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    pattern: '^[0-9a-f]{64}$',
    maxLength: 64,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    description: 'SHA-256 of the bytes; null for a version migrated from before files were stored (no content).',
  })
  sha256: string | null;

  @ApiProperty({ example: 'Countersigned copy', maxLength: 1000, description: 'Empty string when none was given.' })
  comment: string;

  @ApiProperty({ format: 'uuid', description: 'User who uploaded this version' })
  uploadedBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-10-02T14:12:09.123Z' })
  createdAt: string;

  static from(version: DocumentVersion): DocumentVersionDto {
    return {
      version: version.version,
      fileName: version.fileName,
      fileSize: version.fileSize,
      mimeType: version.mimeType,
      sha256: version.sha256,
      comment: version.comment,
      uploadedBy: version.uploadedBy,
      createdAt: version.createdAt.toISOString(),
    };
  }
}

export class DocumentVersionListResponseDto {
  @ApiProperty({ type: [DocumentVersionDto], maxItems: 100, description: 'Newest first' })
  versions: DocumentVersionDto[];

  @ApiProperty({ type: PaginationDto })
  pagination: PaginationDto;
}
