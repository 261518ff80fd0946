import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../common/pagination/pagination.dto.js';
import { COUNT_CAP } from '../document-search.repository.js';
import type { Document } from '../entities/document.entity.js';
import { DocumentDto } from './document-response.dto.js';

/** The list's pagination: a total that may be a lower bound (totalIsExact). */
export class DocumentListPaginationDto extends PaginationDto {
  @ApiProperty({
    example: true,
    description:
      `true: total is the exact number of matching documents. false only with a tags or updatedFrom/updatedTo ` +
      `filter (without q) matching more than ${COUNT_CAP} documents: total is then ${COUNT_CAP}, a lower bound ` +
      `(the count stops there), and totalPages follows from it.`,
  })
  totalIsExact: boolean;
}

export class DocumentListResponseDto {
  @ApiProperty({ type: [DocumentDto], maxItems: 100 })
  documents: DocumentDto[];

  @ApiProperty({ type: DocumentListPaginationDto })
  pagination: DocumentListPaginationDto;
}

/** A document in the trash: the document with when and by whom it was deleted. */
export class TrashedDocumentDto extends DocumentDto {
  @ApiProperty({ format: 'date-time', example: '2026-10-03T09:30:00.000Z' })
  deletedAt: string;

  @ApiProperty({ format: 'uuid', description: 'User who deleted it' })
  deletedBy: string;

  static fromTrashed(document: Document): TrashedDocumentDto {
    return Object.assign(DocumentDto.from(document), {
      deletedAt: document.deletedAt!.toISOString(),
      deletedBy: document.deletedBy!,
    });
  }
}

export class TrashListResponseDto {
  @ApiProperty({
    type: [TrashedDocumentDto],
    maxItems: 100,
    description: 'Last deleted first (deletedAt descending, then id)',
  })
  documents: TrashedDocumentDto[];

  @ApiProperty({ type: PaginationDto, description: 'nextCursor is always null: the trash pages by page only' })
  pagination: PaginationDto;
}
