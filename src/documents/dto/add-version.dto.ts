import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, ValidateIf } from 'class-validator';
import { NoControlCharactersExceptWhitespace, TextLength } from '../../common/validation/text.validators.js';

export const VERSION_COMMENT_MAX = 1000;

/** The text fields of `POST /api/documents/{id}/versions`. */
export class AddVersionDto {
  @ApiPropertyOptional({
    maxLength: VERSION_COMMENT_MAX,
    example: 'Countersigned copy',
    description: 'What changed in this version: at most 1,000 characters (Unicode code points); default empty.',
  })
  @ValidateIf((_object: object, value: unknown) => value !== undefined)
  @NoControlCharactersExceptWhitespace()
  @TextLength(0, VERSION_COMMENT_MAX)
  @IsString()
  readonly comment?: string;
}

/** The multipart/form-data body of a new version as Swagger shows it. */
export class AddVersionFormDto extends AddVersionDto {
  @ApiProperty({
    type: 'string',
    format: 'binary',
    description: 'The new file: exactly one part named "file", after the comment field. Same rules as on create.',
  })
  readonly file: unknown;
}
