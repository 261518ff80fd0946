import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, ValidateIf } from 'class-validator';
import {
  NoControlCharacters,
  NoControlCharactersExceptWhitespace,
  TextLength,
} from '../../common/validation/text.validators.js';
import type { DocumentType } from '../entities/document-type.entity.js';

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
}

/** Omitted fields keep their value; null is invalid. */
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
}

export class DocumentTypeDto {
  @ApiProperty({ format: 'uuid', example: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' })
  id: string;

  @ApiProperty({ example: 'Contract', minLength: 1, maxLength: 100 })
  name: string;

  @ApiProperty({ example: 'Signed agreements with customers and suppliers.', maxLength: 1000 })
  description: string;

  static from(type: DocumentType): DocumentTypeDto {
    return { id: type.id, name: type.name, description: type.description };
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
