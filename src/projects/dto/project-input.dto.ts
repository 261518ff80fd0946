import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Matches, ValidateIf } from 'class-validator';
import {
  NoControlCharacters,
  NoControlCharactersExceptWhitespace,
  TextLength,
} from '../../common/validation/text.validators.js';
import { PROJECT_ROLES, type ProjectRole } from '../project-role.js';

export const PROJECT_LIMITS = { nameMax: 255, descriptionMax: 2_000 } as const;

// Unlike @IsOptional(), this lets null through to the type checks: null is not "omitted", it is invalid.
const isPresent = (_object: object, value: unknown) => value !== undefined;

const NAME_DOC = {
  minLength: 1,
  maxLength: PROJECT_LIMITS.nameMax,
  example: 'Apollo',
  description: '1-255 characters (Unicode code points), not blank, no control or bidi characters. Need not be unique.',
};
const DESCRIPTION_DOC = {
  maxLength: PROJECT_LIMITS.descriptionMax,
  example: 'Supplier contracts and specifications of the Apollo programme.',
  description:
    'At most 2,000 characters (Unicode code points); may be empty. Tabs and newlines are allowed; other ' +
    'control characters and bidi overrides are not.',
};

type FieldDecorator = (object: object, propertyName: string) => void;

/** Applies the decorators as if stacked in this order above a property: the last one first. */
const stacked =
  (...decorators: FieldDecorator[]): FieldDecorator =>
  (object, propertyName) => {
    for (const decorator of decorators.toReversed()) decorator(object, propertyName);
  };

// The type check is listed last, so it runs first.
const ProjectName = () =>
  stacked(
    NoControlCharacters(),
    Matches(/\S/, { message: 'name must not be blank' }),
    TextLength(1, PROJECT_LIMITS.nameMax),
    IsString({ message: 'name must be a string' }),
  );
const ProjectDescription = () =>
  stacked(
    ValidateIf(isPresent),
    NoControlCharactersExceptWhitespace(),
    TextLength(0, PROJECT_LIMITS.descriptionMax),
    IsString({ message: 'description must be a string' }),
  );

/** POST /api/projects. Unknown fields (id, createdAt, members, ...) are rejected with 400. */
export class CreateProjectDto {
  @ApiProperty(NAME_DOC)
  @ProjectName()
  readonly name: string;

  @ApiPropertyOptional({ ...DESCRIPTION_DOC, default: '' })
  @ProjectDescription()
  readonly description?: string;
}

/**
 * PATCH /api/projects/{id}: every field optional; an omitted field keeps its value, {} changes
 * nothing. null is not "omitted": it is refused like any other non-string.
 */
export class UpdateProjectDto {
  @ApiPropertyOptional(NAME_DOC)
  @ValidateIf(isPresent)
  @ProjectName()
  readonly name?: string;

  @ApiPropertyOptional(DESCRIPTION_DOC)
  @ProjectDescription()
  readonly description?: string;
}

/** PUT /api/projects/{id}/members/{userId}. */
export class PutMemberDto {
  @ApiProperty({
    enum: PROJECT_ROLES,
    example: 'contributor',
    description:
      'viewer: reads the documents of the project; contributor: also creates documents and changes its own; ' +
      'manager: everything on every document of the project, and manages the members.',
  })
  @IsIn(PROJECT_ROLES, { message: `role must be one of: ${PROJECT_ROLES.join(', ')}` })
  readonly role: ProjectRole;
}
