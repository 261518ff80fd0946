import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, OmitType, type ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsNotEmpty,
  IsString,
  Matches,
  ValidateIf,
} from 'class-validator';
import { MaxBytes, NoControlCharacters, TextLength } from '../../common/validation/text.validators.js';
import { normaliseUuid } from '../../common/pipes/uuid.pipe.js';
import { DEMO_EXAMPLE } from '../../common/demo-ids.js';

export const USER_LIMITS = { usernameMax: 255, emailMax: 320, nameMax: 100, rolesMax: 20, passwordMaxBytes: 1024 };

// Unlike @IsOptional(), this lets null through to the type checks: null is not "omitted", it is invalid.
const isPresent = (_object: object, value: unknown) => value !== undefined;
const lowerCaseIds = ({ value }: { value: unknown }) =>
  Array.isArray(value) ? value.map((item) => normaliseUuid(item) ?? item) : value;

/** The roleIds rules, shared by create and update: unique UUIDs in any case, stored lower-case. */
const RoleIds = () =>
  // In the order stacked decorators would apply (bottom-up), so the first error reported stays the same.
  applyDecorators(
    Transform(lowerCaseIds),
    IsArray(),
    ArrayMaxSize(USER_LIMITS.rolesMax),
    IsString({ each: true, message: 'roleIds entries must be UUIDs' }),
    Matches(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, {
      each: true,
      message: 'roleIds entries must be UUIDs',
    }),
    ArrayUnique({ message: 'roleIds must not repeat a role' }),
  );

const ROLE_IDS_DOC: ApiPropertyOptions = {
  type: [String],
  format: 'uuid',
  maxItems: USER_LIMITS.rolesMax,
  uniqueItems: true,
  example: [DEMO_EXAMPLE.roleId],
  description: 'The ids of the roles the user holds (GET /api/roles); replaces the whole set. [] for none.',
};

export class CreateUserDto {
  @ApiProperty({
    example: 'carol',
    minLength: 1,
    maxLength: USER_LIMITS.usernameMax,
    description:
      '1-255 characters, no control characters, no leading or trailing whitespace. Unique ignoring case and ' +
      'Unicode form (409 conflict).',
  })
  @NoControlCharacters()
  @Matches(/^\S(.*\S)?$/su, { message: 'username must not start or end with whitespace' })
  @TextLength(1, USER_LIMITS.usernameMax)
  @IsString()
  readonly username: string;

  @ApiProperty({
    format: 'email',
    example: 'carol@example.com',
    maxLength: USER_LIMITS.emailMax,
    description: 'Stored with its domain in lower case. Unique ignoring case (409 conflict).',
  })
  @TextLength(3, USER_LIMITS.emailMax)
  @IsEmail({}, { message: 'email must be an e-mail address such as jane@example.com' })
  @IsString()
  readonly email: string;

  @ApiProperty({ example: 'Carol', minLength: 1, maxLength: USER_LIMITS.nameMax })
  @NoControlCharacters()
  @Matches(/\S/, { message: 'firstName must not be blank' })
  @TextLength(1, USER_LIMITS.nameMax)
  @IsString()
  readonly firstName: string;

  @ApiProperty({ example: 'Lee', minLength: 1, maxLength: USER_LIMITS.nameMax })
  @NoControlCharacters()
  @Matches(/\S/, { message: 'lastName must not be blank' })
  @TextLength(1, USER_LIMITS.nameMax)
  @IsString()
  readonly lastName: string;

  @ApiProperty({
    example: 'plum-orbit-candle-73',
    minLength: 12,
    maxLength: USER_LIMITS.passwordMaxBytes,
    description:
      'At least 12 characters, at most 1,024 bytes, not containing the username, and rated at least 3 of 4 ' +
      'by zxcvbn (common passwords, names, words and keyboard patterns are weak); else 400 weak_password.',
  })
  @MaxBytes(USER_LIMITS.passwordMaxBytes)
  @IsNotEmpty()
  @IsString()
  readonly password: string;

  @ApiProperty(ROLE_IDS_DOC)
  @RoleIds()
  readonly roleIds: string[];
}

/** POST /api/users as the command line and the seed say it: the same rules, with roles by name. */
export class CreateUserByRoleNamesDto extends OmitType(CreateUserDto, ['roleIds'] as const) {
  @NoControlCharacters({ each: true })
  @TextLength(1, 64, { each: true })
  @IsString({ each: true })
  @IsArray()
  readonly roleNames: string[];
}

/** Every field optional; an omitted field keeps its value, null is invalid. Username and password have their own rules. */
export class UpdateUserDto {
  @ApiPropertyOptional({ format: 'email', example: 'carol.lee@example.com', maxLength: USER_LIMITS.emailMax })
  @ValidateIf(isPresent)
  @TextLength(3, USER_LIMITS.emailMax)
  @IsEmail({}, { message: 'email must be an e-mail address such as jane@example.com' })
  @IsString()
  readonly email?: string;

  @ApiPropertyOptional({ example: 'Carol', minLength: 1, maxLength: USER_LIMITS.nameMax })
  @ValidateIf(isPresent)
  @NoControlCharacters()
  @Matches(/\S/, { message: 'firstName must not be blank' })
  @TextLength(1, USER_LIMITS.nameMax)
  @IsString()
  readonly firstName?: string;

  @ApiPropertyOptional({ example: 'Lee', minLength: 1, maxLength: USER_LIMITS.nameMax })
  @ValidateIf(isPresent)
  @NoControlCharacters()
  @Matches(/\S/, { message: 'lastName must not be blank' })
  @TextLength(1, USER_LIMITS.nameMax)
  @IsString()
  readonly lastName?: string;

  @ApiPropertyOptional({
    example: false,
    description: 'false deactivates the account: login is refused and every token it holds stops working at once.',
  })
  @ValidateIf(isPresent)
  @IsBoolean({ message: 'isActive must be true or false' })
  readonly isActive?: boolean;

  @ApiPropertyOptional(ROLE_IDS_DOC)
  @ValidateIf(isPresent)
  @RoleIds()
  readonly roleIds?: string[];
}

export class SetPasswordDto {
  @ApiProperty({
    example: 'plum-orbit-candle-73',
    minLength: 12,
    maxLength: USER_LIMITS.passwordMaxBytes,
    description: 'The password policy of POST /api/users applies (400 weak_password).',
  })
  @MaxBytes(USER_LIMITS.passwordMaxBytes)
  @IsNotEmpty()
  @IsString()
  readonly newPassword: string;
}

export const LIST_USERS_MAX_PAGE_SIZE = 100;
export const LIST_USERS_DEFAULT_PAGE_SIZE = 20;
export const LIST_USERS_MAX_PAGE = 1_000_000;
