import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../common/pagination/pagination.dto.js';
import type { Role } from '../entities/role.entity.js';
import type { User } from '../entities/user.entity.js';

export class RoleResponseDto {
  @ApiProperty({ format: 'uuid', example: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b' })
  id: string;

  @ApiProperty({ example: 'admin' })
  name: string;

  @ApiProperty({
    description:
      'Resource name -> allowed actions. "documents": ["update"] lets the holder update any document; ' +
      'without it a user may update only documents they uploaded.',
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { documents: ['update'] },
  })
  permissions: Record<string, string[]>;

  static from(role: Role): RoleResponseDto {
    return { id: role.id, name: role.name, permissions: role.permissions };
  }
}

/** The public User: an explicit allow-list, so no hash or token version can leak. */
export class UserResponseDto {
  @ApiProperty({ format: 'uuid', example: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' })
  id: string;

  @ApiProperty({ example: 'alice' })
  username: string;

  @ApiProperty({ format: 'email', example: 'alice@example.com' })
  email: string;

  @ApiProperty({ example: 'Alice' })
  firstName: string;

  @ApiProperty({ example: 'Martin' })
  lastName: string;

  @ApiProperty({ type: [RoleResponseDto] })
  roles: RoleResponseDto[];

  @ApiProperty({ example: true })
  isActive: boolean;

  @ApiProperty({ format: 'date-time', example: '2026-01-15T09:30:00.000Z' })
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
  @ApiProperty({ type: [UserResponseDto], description: 'By username (its identity key), then id' })
  users: UserResponseDto[];

  @ApiProperty({ type: PaginationDto })
  pagination: PaginationDto;
}
