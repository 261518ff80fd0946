import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsISO8601, IsOptional, IsString, Max, Min } from 'class-validator';
import { toBoolean } from '../../common/validation/query.transforms.js';
import { NoControlCharacters, TextLength } from '../../common/validation/text.validators.js';
import type { ShareWithCreator } from '../shares.repository.js';

const SHARE_ID_EXAMPLE = '3d6f9a1c-2b4e-4c8d-9f1a-5e7b9c1d3f5a';
const TOKEN_EXAMPLE = 'q1VvC9yKJ3mX2a7H0tBf8ZsWcLr4pNdE6gYuTkQhIoM';

export class CreateShareDto {
  @ApiProperty({
    format: 'date-time',
    example: '2026-12-11T17:00:00.000Z',
    description: 'When the link stops working: in the future, at most SHARE_MAX_DAYS (30 by default) from now.',
  })
  @IsISO8601({ strict: true, strictSeparator: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  readonly expiresAt: string;

  @ApiPropertyOptional({
    minLength: 8,
    maxLength: 128,
    example: 'amber-Lantern-44',
    description: 'Asked of whoever opens the link (X-Share-Password header); stored as an argon2id hash.',
  })
  @IsOptional()
  @NoControlCharacters()
  @TextLength(8, 128)
  @IsString()
  readonly password?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1_000_000, example: 5 })
  @IsOptional()
  @Min(1)
  @Max(1_000_000)
  @IsInt({ message: 'maxDownloads must be an integer' })
  readonly maxDownloads?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 2_147_483_647,
    example: 2,
    description: 'A version to serve; default whatever version is current when the link is used.',
  })
  @IsOptional()
  @Min(1)
  @Max(2_147_483_647)
  @IsInt({ message: 'version must be an integer' })
  readonly version?: number;
}

export class CreatedShareDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: SHARE_ID_EXAMPLE })
  id: string;

  @ApiProperty({
    maxLength: 2100,
    example: `https://dms.example.com/s/${TOKEN_EXAMPLE}`,
    description: 'The link to hand out (SHARE_BASE_URL + /s/<token>); shown this once.',
  })
  url: string;

  @ApiProperty({
    minLength: 43,
    maxLength: 43,
    example: TOKEN_EXAMPLE,
    description: '256 random bits; only its SHA-256 is stored, so it cannot be shown again.',
  })
  token: string;
}

export class ShareCreatorDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '0b3e7c1e-2d4a-4f7b-9a55-6c1d2e3f4a5b' })
  id: string;

  @ApiProperty({ maxLength: 255, example: 'alice' })
  username: string;
}

export class ShareLinkDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: SHARE_ID_EXAMPLE })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, example: '9a3c1f4e-8d2b-4c6a-9e1f-3b5d7a9c1e2f' })
  documentId: string;

  @ApiProperty({ type: ShareCreatorDto })
  createdBy: ShareCreatorDto;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-11-27T10:15:30.123Z' })
  createdAt: string;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-12-11T17:00:00.000Z' })
  expiresAt: string;

  @ApiProperty({ example: true })
  hasPassword: boolean;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1_000_000, nullable: true, example: 5 })
  maxDownloads: number | null;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 2_147_483_647, example: 1 })
  downloads: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 2_147_483_647, nullable: true, example: null })
  version: number | null;

  @ApiProperty({ type: 'string', format: 'date-time', maxLength: 30, nullable: true, example: null })
  revokedAt: string | null;

  static from(link: ShareWithCreator): ShareLinkDto {
    return {
      id: link.id,
      documentId: link.documentId,
      createdBy: { id: link.createdBy, username: link.creatorName },
      createdAt: link.createdAt.toISOString(),
      expiresAt: link.expiresAt.toISOString(),
      hasPassword: link.passwordHash !== null,
      maxDownloads: link.maxDownloads,
      downloads: link.downloads,
      version: link.version,
      revokedAt: link.revokedAt?.toISOString() ?? null,
    };
  }
}

export class ShareLinkListResponseDto {
  @ApiProperty({ type: [ShareLinkDto], maxItems: 200, description: 'Newest first, revoked and expired included' })
  shares: ShareLinkDto[];
}

/** `GET /s/{token}?download=true`: the file even for a browser that asks for HTML. */
export class OpenShareQueryDto {
  @ApiPropertyOptional({ type: 'boolean', default: false, description: 'true: the file, never the HTML page' })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'download must be true or false' })
  readonly download?: boolean;
}
