import { ApiProperty } from '@nestjs/swagger';

export const CONTENT_STATUSES = ['pending', 'processing', 'indexed', 'failed', 'unsupported', 'too_large'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];

/** A content state as the document list reads it with its page. */
export interface ListedContentState {
  status: ContentStatus;
  pages: number | null;
  characters: number | null;
  extractedAt: Date | null;
  error: string | null;
}

/**
 * What was read from a document's current version (README "Content and search"). Part of the
 * document answer's shape, so declared here; the content feature fills it in
 * (ContentAnswersInterceptor).
 */
export class ContentStateDto {
  @ApiProperty({
    enum: CONTENT_STATUSES,
    example: 'indexed',
    description:
      'pending: queued; processing: being read; indexed: its text is searchable (GET …/text); failed: the file ' +
      'could not be read (see error); unsupported: no text is read from its format; too_large: over a limit ' +
      '(CONTENT_MAX_PAGES, CONTENT_MAX_UNCOMPRESSED_BYTES).',
  })
  status: ContentStatus;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    maximum: 2_147_483_647,
    example: 12,
    description: 'Pages read (PDF; 1 for an image); null for formats without pages or when not known.',
  })
  pages: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    maximum: 2_147_483_647,
    example: 48210,
    description: 'Characters kept (at most CONTENT_MAX_CHARS); null until indexed.',
  })
  characters: number | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, example: '2026-10-02T14:12:11.482Z' })
  extractedAt: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 500,
    example: null,
    description: 'Why the file was not read (failed, unsupported, too_large); null otherwise.',
  })
  error: string | null;

  /** A state the document list read with its page (null: no row yet, pending). */
  static fromListed(state: ListedContentState | null): ContentStateDto {
    return {
      status: state?.status ?? 'pending',
      pages: state?.pages ?? null,
      characters: state?.characters ?? null,
      extractedAt: state?.extractedAt?.toISOString() ?? null,
      error: state?.error ?? null,
    };
  }
}

export const MATCH_FIELDS = ['title', 'description', 'tags', 'fileName', 'content'] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];

/** Where a search's words were found in a document. */
export class DocumentMatchDto {
  @ApiProperty({ enum: MATCH_FIELDS, example: 'content' })
  field: MatchField;

  @ApiProperty({
    maxLength: 2000,
    example: '…the supplier shall deliver the <mark>turbines</mark> within thirty days…',
    description: 'About 200 characters around the first hit, HTML-escaped, every hit wrapped in <mark>…</mark>.',
  })
  snippet: string;
}
