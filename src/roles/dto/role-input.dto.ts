import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsObject, IsString, Matches, ValidateIf, registerDecorator, type ValidationArguments } from 'class-validator';
import { PERMISSION_CATALOGUE, permissionProblems } from '../../common/authz/permission-catalogue.js';
import { NoControlCharacters, TextLength } from '../../common/validation/text.validators.js';

const isPresent = (_object: object, value: unknown) => value !== undefined;

/** Only the catalogue's resources and actions; the message names every bad entry. */
function InCatalogue() {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'inPermissionCatalogue',
      target: object.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) => permissionProblems(value).length === 0,
        defaultMessage: (args: ValidationArguments) => permissionProblems(args.value).join('; '),
      },
    });
}

/**
 * The permissions object exactly as it arrived: class-transformer would drop keys that name an
 * inherited method ("toString", "valueOf", ...), so {"toString": ["read"]} became a valid {}.
 */
const asReceived = () => Transform(({ obj }: { obj: Record<string, unknown> }) => obj.permissions);

const PERMISSIONS_DOC: ApiPropertyOptions = {
  type: 'object',
  // The catalogue's exact shape, so a generated client refuses what the server refuses.
  properties: Object.fromEntries(
    Object.entries(PERMISSION_CATALOGUE).map(([resource, actions]) => [
      resource,
      { type: 'array', items: { type: 'string', enum: [...actions] }, uniqueItems: true, maxItems: actions.length },
    ]),
  ),
  additionalProperties: false,
  example: { documents: ['read', 'update'], documentTypes: ['manage'] },
  description:
    'Resource -> actions, from the catalogue only: ' +
    Object.entries(PERMISSION_CATALOGUE)
      .map(([resource, actions]) => `${resource}: ${actions.join(', ')}`)
      .join('; ') +
    '. Anything else is 400 validation_failed naming the entry.',
};

export class CreateRoleDto {
  @ApiProperty({
    example: 'auditor',
    minLength: 1,
    maxLength: 64,
    description: '1-64 characters; unique ignoring case and Unicode form (409 conflict).',
  })
  @NoControlCharacters()
  @Matches(/^\S(.*\S)?$/su, { message: 'name must not start or end with whitespace' })
  @TextLength(1, 64)
  @IsString()
  readonly name: string;

  @ApiProperty(PERMISSIONS_DOC)
  @InCatalogue()
  @IsObject({ message: 'permissions must be an object mapping a resource to an array of actions' })
  @asReceived()
  readonly permissions: Record<string, string[]>;
}

/** Omitted fields keep their value; null is invalid. */
export class UpdateRoleDto {
  @ApiPropertyOptional({ example: 'auditor', minLength: 1, maxLength: 64 })
  @ValidateIf(isPresent)
  @NoControlCharacters()
  @Matches(/^\S(.*\S)?$/su, { message: 'name must not start or end with whitespace' })
  @TextLength(1, 64)
  @IsString()
  readonly name?: string;

  @ApiPropertyOptional({
    ...PERMISSIONS_DOC,
    description: `${String(PERMISSIONS_DOC.description)} Replaces the whole object.`,
  })
  @ValidateIf(isPresent)
  @InCatalogue()
  @IsObject({ message: 'permissions must be an object mapping a resource to an array of actions' })
  @asReceived()
  readonly permissions?: Record<string, string[]>;
}
