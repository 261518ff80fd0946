import { ApiProperty, ApiPropertyOptional, PartialType, PickType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  ValidateIf,
} from 'class-validator';
import { toBoolean } from '../../common/validation/query.transforms.js';
import { NoControlCharacters, TextLength } from '../../common/validation/text.validators.js';
import { FIELD_TYPES, type DocumentField, type FieldType } from '../entities/document-field.entity.js';
import { FIELD_KEY, FIELD_LIMITS } from '../field-values.js';
import { DEMO_EXAMPLE } from '../../common/demo-ids.js';

// null means none (options, min, max), so it skips the checks as an omitted value does.
const notNull = (_object: object, value: unknown) => value !== null && value !== undefined;

export class CreateDocumentFieldDto {
  @ApiProperty({
    pattern: FIELD_KEY.source,
    maxLength: 64,
    example: 'amount',
    description:
      "Names the field in documents' `fields`, in list filters (field.<key>=) and sorts (sort=field.<key>): a " +
      'lower-case letter, then letters, digits or _. Unique within the type; fixed once created.',
  })
  @Matches(FIELD_KEY, {
    message: 'key must start with a lower-case letter and hold only letters, digits and _ (at most 64)',
  })
  @IsString()
  readonly key: string;

  @ApiProperty({ minLength: 1, maxLength: FIELD_LIMITS.labelMax, example: 'Contract amount (EUR)' })
  @NoControlCharacters()
  @Matches(/\S/, { message: 'label must not be blank' })
  @TextLength(1, FIELD_LIMITS.labelMax)
  @IsString()
  readonly label: string;

  @ApiProperty({
    enum: FIELD_TYPES,
    example: 'number',
    description:
      'text: a string (min/max: its length, at most 500); number (min/max: the value); date: "YYYY-MM-DD"; ' +
      'boolean; select: one of options; user: the id of an active user; url: an http(s) URL (at most 500). ' +
      'Fixed once created (delete the field and declare it again to change it).',
  })
  @IsIn(FIELD_TYPES, { message: `type must be one of: ${FIELD_TYPES.join(', ')}` })
  readonly type: FieldType;

  @ApiProperty({
    example: false,
    description:
      'Documents of the type must have a value: checked on create, on a type change and whenever their fields change.',
  })
  @IsBoolean({ message: 'required must be true or false' })
  readonly required: boolean;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', minLength: 1, maxLength: FIELD_LIMITS.optionMax },
    nullable: true,
    minItems: 1,
    maxItems: FIELD_LIMITS.optionsMax,
    example: ['EU', 'US', 'APAC'],
    description: 'The choices of a select field (required for it, refused for other types), each 1-100 characters.',
  })
  @ValidateIf(notNull)
  @NoControlCharacters({ each: true })
  @TextLength(1, FIELD_LIMITS.optionMax, { each: true })
  @IsString({ each: true, message: 'each option must be a string' })
  @ArrayMaxSize(FIELD_LIMITS.optionsMax)
  @ArrayMinSize(1)
  @IsArray({ message: 'options must be an array of strings' })
  readonly options?: string[] | null;

  @ApiPropertyOptional({
    type: 'number',
    nullable: true,
    example: 0,
    description: 'number: the smallest value; text: the shortest length. Not for other types.',
  })
  @ValidateIf(notNull)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'min must be a number' })
  readonly min?: number | null;

  @ApiPropertyOptional({
    type: 'number',
    nullable: true,
    example: 1_000_000,
    description: 'number: the largest value; text: the longest length (at most 500). Not for other types.',
  })
  @ValidateIf(notNull)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'max must be a number' })
  readonly max?: number | null;
}

/** PATCH: label, required, options and bounds; the key and the type stay (sending them is 400). */
export class UpdateDocumentFieldDto extends PartialType(
  PickType(CreateDocumentFieldDto, ['label', 'required', 'options', 'min', 'max'] as const),
) {}

export class DeleteDocumentFieldQueryDto {
  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: 'true: delete the field even though documents hold values of it, removing those values.',
  })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'force must be true or false' })
  readonly force?: boolean;
}

export class DocumentFieldDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '3d2c1b0a-9f8e-4d7c-8b6a-5f4e3d2c1b0a' })
  id: string;

  @ApiProperty({ format: 'uuid', maxLength: 36, example: DEMO_EXAMPLE.documentTypeId })
  documentTypeId: string;

  @ApiProperty({ pattern: FIELD_KEY.source, maxLength: 64, example: 'amount' })
  key: string;

  @ApiProperty({ minLength: 1, maxLength: FIELD_LIMITS.labelMax, example: 'Contract amount (EUR)' })
  label: string;

  @ApiProperty({ enum: FIELD_TYPES, example: 'number' })
  type: FieldType;

  @ApiProperty({ example: false })
  required: boolean;

  @ApiProperty({
    type: 'array',
    items: { type: 'string', maxLength: FIELD_LIMITS.optionMax },
    nullable: true,
    maxItems: FIELD_LIMITS.optionsMax,
    example: null,
  })
  options: string[] | null;

  @ApiProperty({ type: 'number', nullable: true, example: 0 })
  min: number | null;

  @ApiProperty({ type: 'number', nullable: true, example: 1_000_000 })
  max: number | null;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-09-01T08:00:00.000Z' })
  createdAt: string;

  static from(field: DocumentField): DocumentFieldDto {
    return {
      id: field.id,
      documentTypeId: field.documentTypeId,
      key: field.key,
      label: field.label,
      type: field.type,
      required: field.required,
      options: field.options,
      min: field.min,
      max: field.max,
      createdAt: field.createdAt.toISOString(),
    };
  }
}

export class DocumentFieldEnvelopeDto {
  @ApiProperty({ type: DocumentFieldDto })
  field: DocumentFieldDto;
}

export class DocumentFieldListResponseDto {
  @ApiProperty({ type: [DocumentFieldDto], maxItems: FIELD_LIMITS.fieldsPerType })
  fields: DocumentFieldDto[];
}
