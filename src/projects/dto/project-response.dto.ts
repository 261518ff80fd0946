import { ApiProperty } from '@nestjs/swagger';
import { PaginationDto } from '../../common/pagination/pagination.dto.js';
import type { Project } from '../entities/project.entity.js';
import { PROJECT_ROLES, type ProjectRole } from '../project-role.js';
import type { ProjectMemberView } from '../projects.repository.js';

export class ProjectDto {
  @ApiProperty({ format: 'uuid', example: '0b6f7c1e-5a7d-4f0e-9a43-2f3e1c9d8b7a' })
  id: string;

  @ApiProperty({ minLength: 1, maxLength: 255, example: 'Apollo' })
  name: string;

  @ApiProperty({ maxLength: 2000, example: 'Supplier contracts and specifications of the Apollo programme.' })
  description: string;

  @ApiProperty({ format: 'date-time', example: '2026-09-14T08:30:00.000Z' })
  createdAt: string;

  @ApiProperty({
    enum: [...PROJECT_ROLES, null],
    nullable: true,
    example: 'manager',
    description: "The caller's role in the project; null when the caller sees it only through projects:manage.",
  })
  role: ProjectRole | null;

  static from(project: Project, role: ProjectRole | null): ProjectDto {
    return {
      id: project.id,
      name: project.name,
      description: project.description,
      createdAt: project.createdAt.toISOString(),
      role,
    };
  }
}

export class ProjectResponseDto {
  @ApiProperty({ type: ProjectDto })
  project: ProjectDto;
}

export class ProjectListResponseDto {
  @ApiProperty({ type: [ProjectDto], maxItems: 100, description: 'By name, then id' })
  projects: ProjectDto[];

  @ApiProperty({ type: PaginationDto, description: 'nextCursor is always null: this list pages by page number.' })
  pagination: PaginationDto;
}

export class ProjectMemberDto {
  @ApiProperty({ format: 'uuid', example: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' })
  userId: string;

  @ApiProperty({ example: 'alice', minLength: 1, maxLength: 255 })
  username: string;

  @ApiProperty({ enum: PROJECT_ROLES, example: 'contributor' })
  role: ProjectRole;

  static from(member: ProjectMemberView): ProjectMemberDto {
    return { userId: member.userId, username: member.username, role: member.role };
  }
}

export class ProjectMemberListResponseDto {
  @ApiProperty({
    type: [ProjectMemberDto],
    maxItems: 100_000,
    description: 'Every member, by username, then user id (a sanity bound)',
  })
  members: ProjectMemberDto[];
}

export class ProjectMemberResponseDto {
  @ApiProperty({ type: ProjectMemberDto })
  member: ProjectMemberDto;
}
