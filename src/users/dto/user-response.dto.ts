import { ApiProperty } from '@nestjs/swagger';
import { PERMISSION_CATALOGUE } from '../../common/authz/permission-catalogue.js';
import { PaginationDto } from '../../common/pagination/pagination.dto.js';
import type { Role } from '../entities/role.entity.js';
import type { User } from '../entities/user.entity.js';

export class RoleResponseDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b' })
  id: string;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'admin' })
  name: string;

  @ApiProperty({
    description:
      'Resource name -> allowed actions. "documents": ["update"] lets the holder update any document; ' +
      'without it a user may update only documents they uploaded.',
    type: 'object',
    // Only catalogue resources and actions are ever stored (checked on every write).
    properties: Object.fromEntries(
      Object.entries(PERMISSION_CATALOGUE).map(([resource, actions]) => [
        resource,
        {
          type: 'array' as const,
          items: { type: 'string' as const, enum: [...actions] },
          uniqueItems: true,
          maxItems: actions.length,
        },
      ]),
    ),
    additionalProperties: false,
    example: { documents: ['update'] },
  })
  permissions: Record<string, string[]>;

  static from(role: Role): RoleResponseDto {
    return { id: role.id, name: role.name, permissions: role.permissions };
  }
}

/** The public User: an explicit allow-list, so no hash or token version can leak. */
export class UserResponseDto {
  @ApiProperty({ format: 'uuid', maxLength: 36, example: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' })
  id: string;

  @ApiProperty({ minLength: 1, maxLength: 255, example: 'alice' })
  username: string;

  @ApiProperty({ format: 'email', maxLength: 320, example: 'alice@example.com' })
  email: string;

  @ApiProperty({ maxLength: 100, example: 'Alice' })
  firstName: string;

  @ApiProperty({ maxLength: 100, example: 'Martin' })
  lastName: string;

  @ApiProperty({
    type: [RoleResponseDto],
    maxItems: 1000,
    description: 'The roles the user holds (a handful in practice; the bound is a sanity limit for clients).',
  })
  roles: RoleResponseDto[];

  @ApiProperty({ example: true })
  isActive: boolean;

  @ApiProperty({ format: 'date-time', maxLength: 30, example: '2026-01-15T09:30:00.000Z' })
  createdAt: string;

  static from(user: User): UserResponseDto {
    return {
      id: user.id,
      username: user.username,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      roles: (user.roles ?? []).map((role) => RoleResponseDto.from(role)),
      isActive: user.isActive,
      createdAt: user.createdAt.toISOString(),
    };
  }
}

export class UserEnvelopeDto {
  @ApiProperty({ type: UserResponseDto })
  user: UserResponseDto;
}

export class UserListResponseDto {
  @ApiProperty({ type: [UserResponseDto], maxItems: 100, description: 'By username (its identity key), then id' })
  users: UserResponseDto[];

  @ApiProperty({ type: PaginationDto })
  pagination: PaginationDto;
}
