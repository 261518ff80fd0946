import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsString, Matches, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import {
  NoControlCharacters,
  NoControlCharactersExceptWhitespace,
  TextLength,
} from '../../common/validation/text.validators.js';
import { retentionOf } from '../document-types.service.js';
import type { DocumentType } from '../entities/document-type.entity.js';
import {
  RETENTION_ACTIONS,
  RETENTION_FROM,
  RETENTION_MAX_DAYS,
  type RetentionAction,
  type RetentionFrom,
} from '../retention-policy.js';

export class RetentionPolicyDto {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: RETENTION_MAX_DAYS, example: 3650 })
  @Max(RETENTION_MAX_DAYS)
  @Min(1)
  @IsInt({ message: 'retention.days must be an integer' })
  readonly days: number;

  @ApiProperty({
    enum: RETENTION_FROM,
    example: 'published',
    description:
      'created: from the upload; published / archived: from when the document entered that status, ' +
      'while it is still in it.',
  })
  @IsIn(RETENTION_FROM, { message: `retention.from must be one of ${RETENTION_FROM.join(', ')}` })
  readonly from: RetentionFrom;

  @ApiProperty({
    enum: RETENTION_ACTIONS,
    example: 'archive',
    description:
      'archive: a published document becomes archived (other statuses wait until published); trash: to the ' +
      'trash (purged after TRASH_RETENTION_DAYS); purge: removed at once with its versions.',
  })
  @IsIn(RETENTION_ACTIONS, { message: `retention.action must be one of ${RETENTION_ACTIONS.join(', ')}` })
  readonly action: RetentionAction;
}

const RETENTION_DOC = {
  type: RetentionPolicyDto,
  nullable: true,
  description:
    'What happens to documents of this type after a while: the scheduled retention job applies it once per ' +
    'document, never to a document under legal hold, in the name of the user who set it. null: none.',
} as const;

/** A nested policy, or null (none); class-validator checks its fields. */
const RetentionField = () => (target: object, key: string) => {
  ValidateIf((_object: object, value: unknown) => value !== null && value !== undefined)(target, key);
  ValidateNested()(target, key);
  IsObject({ message: 'retention must be an object {days, from, action} or null' })(target, key);
  Type(() => RetentionPolicyDto)(target, key);
};

const isPresent = (_object: object, value: unknown) => value !== undefined;

export class CreateDocumentTypeDto {
  @ApiProperty({
    example: 'Invoice',
    minLength: 1,
    maxLength: 100,
    description: '1-100 characters, not blank; unique ignoring case and Unicode form (409 conflict).',
  })
  @NoControlCharacters()
  @Matches(/^\S(.*\S)?$/su, { message: 'name must not start or end with whitespace' })
  @TextLength(1, 100)
  @IsString()
  readonly name: string;

  @ApiProperty({ example: 'Supplier invoices, one per PDF.', maxLength: 1000, description: 'May be empty.' })
  @NoControlCharactersExceptWhitespace()
  @TextLength(0, 1000)
  @IsString()
  readonly description: string;

  @ApiPropertyOptional(RETENTION_DOC)
  @RetentionField()
  readonly retention?: RetentionPolicyDto | null;
}

/** Omitted fields keep their value; null is invalid (except retention: null removes it). */
export class UpdateDocumentTypeDto {
  @ApiPropertyOptional({ example: 'Invoice', minLength: 1, maxLength: 100 })
  @ValidateIf(isPresent)
  @NoControlCharacters()
  @Matches(/^\S(.*\S)?$/su, { message: 'name must not start or end with whitespace' })
  @TextLength(1, 100)
  @IsString()
  readonly name?: string;

  @ApiPropertyOptional({ example: 'Supplier invoices, one per PDF.', maxLength: 1000 })
  @ValidateIf(isPresent)
  @NoControlCharactersExceptWhitespace()
  @TextLength(0, 1000)
  @IsString()
  readonly description?: string;

  @ApiPropertyOptional(RETENTION_DOC)
  @RetentionField()
  readonly retention?: RetentionPolicyDto | null;
}

export class DocumentTypeDto {
  @ApiProperty({ format: 'uuid', example: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' })
  id: string;

  @ApiProperty({ example: 'Contract', minLength: 1, maxLength: 100 })
  name: string;

  @ApiProperty({ example: 'Signed agreements with customers and suppliers.', maxLength: 1000 })
  description: string;

  @ApiPropertyOptional({ type: RetentionPolicyDto, description: 'Present when the type declares retention.' })
  retention?: RetentionPolicyDto;

  static from(type: DocumentType): DocumentTypeDto {
    const retention = retentionOf(type);
    return { id: type.id, name: type.name, description: type.description, ...(retention ? { retention } : {}) };
  }
}

export class DocumentTypeEnvelopeDto {
  @ApiProperty({ type: DocumentTypeDto })
  documentType: DocumentTypeDto;
}

export class DocumentTypeListResponseDto {
  @ApiProperty({
    type: [DocumentTypeDto],
    maxItems: 10_000,
    description: 'By name (every type; a sanity bound, far above any real catalogue)',
  })
  documentTypes: DocumentTypeDto[];
}
