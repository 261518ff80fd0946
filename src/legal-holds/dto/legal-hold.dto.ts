import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayUnique, IsArray, IsOptional, IsString, Matches } from 'class-validator';
import { normaliseUuid } from '../../common/pipes/uuid.pipe.js';
import {
  NoControlCharacters,
  NoControlCharactersExceptWhitespace,
  TextLength,
} from '../../common/validation/text.validators.js';
import { IsUuidField } from '../../common/validation/uuid.validators.js';
import type { HoldWithDocuments } from '../legal-holds.repository.js';
import { DEMO_EXAMPLE } from '../../common/demo-ids.js';

export const HOLD_DOCUMENT_IDS_MAX = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class CreateLegalHoldDto {
  @ApiProperty({ example: 'Smith v. Acme', minLength: 1, maxLength: 200 })
  @NoControlCharacters()
  @Matches(/^\S(.*\S)?$/su, { message: 'name must not start or end with whitespace' })
  @TextLength(1, 200)
  @IsString()
  readonly name: string;

  @ApiProperty({
    example: 'Litigation notice of 2026-03-01: keep every contract with Smith.',
    minLength: 1,
    maxLength: 2000,
  })
  @NoControlCharactersExceptWhitespace()
  @TextLength(1, 2000)
  @IsString()
  readonly reason: string;

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    maxItems: HOLD_DOCUMENT_IDS_MAX,
    uniqueItems: true,
    example: [DEMO_EXAMPLE.documentId],
    description: 'Documents to hold (live or in the trash; 404 document_not_found for an unknown id).',
  })
  @IsOptional()
  @Transform(({ value }) => (Array.isArray(value) ? value.map((item) => normaliseUuid(item) ?? item) : value))
  @IsArray()
  @ArrayMaxSize(HOLD_DOCUMENT_IDS_MAX)
  @IsString({ each: true, message: 'documentIds entries must be UUIDs' })
  @Matches(UUID, { each: true, message: 'documentIds entries must be UUIDs' })
  @ArrayUnique({ message: 'documentIds must not repeat a document' })
  readonly documentIds?: string[];

  @ApiPropertyOptional({
    format: 'uuid',
    example: DEMO_EXAMPLE.projectId,
    description: 'Hold every document of this project, present and future. Give documentIds, projectId or both.',
  })
  @IsOptional()
  @IsUuidField()
  readonly projectId?: string;
}

export class HeldDocumentDto {
  @ApiProperty({ format: 'uuid', example: '9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f' })
  id: string;

  @ApiProperty({ example: 'Supplier contract', maxLength: 255 })
  title: string;

  @ApiProperty({ format: 'uuid', example: '2c4e6a8b-1d3f-4a5b-9c7d-8e0f1a2b3c4d' })
  projectId: string;

  @ApiProperty({ example: false, description: 'In the trash (held there: the purge skips it).' })
  trashed: boolean;
}

export class LegalHoldDto {
  @ApiProperty({ format: 'uuid', example: '4e5f6a7b-8c9d-4e0f-9a1b-2c3d4e5f6a7b' })
  id: string;

  @ApiProperty({ example: 'Smith v. Acme', maxLength: 200 })
  name: string;

  @ApiProperty({ example: 'Litigation notice of 2026-03-01: keep every contract with Smith.', maxLength: 2000 })
  reason: string;

  @ApiProperty({
    type: 'string',
    format: 'uuid',
    nullable: true,
    example: null,
    description: 'Set: every document of this project is held, including those added later.',
  })
  projectId: string | null;

  @ApiProperty({ format: 'uuid', example: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' })
  createdBy: string;

  @ApiProperty({ format: 'date-time', example: '2026-03-02T09:15:27.412Z' })
  createdAt: string;

  @ApiProperty({
    type: [HeldDocumentDto],
    maxItems: 1000,
    description: 'The documents held (named, or of the project), by title; the first 1,000.',
  })
  documents: HeldDocumentDto[];

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 1,
    description: 'How many documents the hold covers now.',
  })
  documentCount: number;

  static from({ hold, documents, documentCount }: HoldWithDocuments): LegalHoldDto {
    return {
      id: hold.id,
      name: hold.name,
      reason: hold.reason,
      projectId: hold.projectId,
      createdBy: hold.createdBy,
      createdAt: hold.createdAt.toISOString(),
      documents,
      documentCount,
    };
  }
}

export class LegalHoldEnvelopeDto {
  @ApiProperty({ type: LegalHoldDto })
  legalHold: LegalHoldDto;
}

export class LegalHoldListResponseDto {
  @ApiProperty({ type: [LegalHoldDto], maxItems: 10_000, description: 'Newest first' })
  legalHolds: LegalHoldDto[];
}
