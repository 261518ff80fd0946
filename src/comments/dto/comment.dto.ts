import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { toInteger } from '../../common/validation/query.transforms.js';
import { NoControlCharactersExceptWhitespace, TextLength } from '../../common/validation/text.validators.js';
import type { CommentWithAuthor } from '../comments.repository.js';

export const COMMENT_BODY_MAX = 10_000;

export class CommentBodyDto {
  @ApiProperty({
    minLength: 1,
    maxLength: COMMENT_BODY_MAX,
    example: 'Looks good to me. @alice, can you check the figures on page 3?',
    description:
      '1-10,000 characters (code points). `@username` mentions notify those users if they can read the document ' +
      '(a username containing spaces cannot be mentioned).',
  })
  @NoControlCharactersExceptWhitespace()
  @TextLength(1, COMMENT_BODY_MAX)
  @IsString()
  readonly body: string;
}

export class ListCommentsQueryDto {
  @ApiPropertyOptional({ type: 'integer', format: 'int32', minimum: 1, maximum: 100, default: 20 })
  @IsOptional()
  @Transform(toInteger)
  @Min(1)
  @Max(100)
  @IsInt({ message: 'limit must be an integer' })
  readonly limit: number = 20;

  @ApiPropertyOptional({
    description: 'Opaque position returned as nextCursor: the page continues right after that comment.',
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
  })
  @IsOptional()
  @IsString({ message: 'cursor must be given once, as a string' })
  readonly cursor?: string;
}

export class CommentAuthorDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '0b3e7c1e-2d4a-4f7b-9a55-6c1d2e3f4a5b' })
  id: string;

  @ApiProperty({ maxLength: 255, example: 'alice' })
  username: string;

  @ApiProperty({ maxLength: 100, example: 'Alice' })
  firstName: string;

  @ApiProperty({ maxLength: 100, example: 'Martin' })
  lastName: string;
}

export class CommentDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '5f0c2b7e-8a1d-4c3e-9b2f-1a2b3c4d5e6f' })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, example: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a' })
  documentId: string;

  @ApiProperty({ type: CommentAuthorDto })
  author: CommentAuthorDto;

  @ApiProperty({
    maxLength: COMMENT_BODY_MAX,
    example: 'Looks good to me. @alice, can you check the figures on page 3?',
  })
  body: string;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  createdAt: string;

  @ApiProperty({
    format: 'date-time',
    maxLength: 30,
    nullable: true,
    type: 'string',
    example: null,
    description: 'Set by an edit',
  })
  editedAt: string | null;

  static from(comment: CommentWithAuthor): CommentDto {
    const { author } = comment;
    return {
      id: comment.id,
      documentId: comment.documentId,
      author: { id: author.id, username: author.username, firstName: author.firstName, lastName: author.lastName },
      body: comment.body,
      createdAt: comment.createdAt.toISOString(),
      editedAt: comment.editedAt?.toISOString() ?? null,
    };
  }
}

export class CommentListResponseDto {
  @ApiProperty({ type: [CommentDto], maxItems: 100, description: 'Oldest first' })
  comments: CommentDto[];

  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER,
    example: 3,
    description: 'Comments on the document',
  })
  total: number;

  @ApiProperty({
    type: 'string',
    nullable: true,
    maxLength: 200,
    pattern: '^[A-Za-z0-9_-]{1,200}$',
    example: null,
    description: 'Pass as cursor for the comments after this page; null when there are none.',
  })
  nextCursor: string | null;
}
