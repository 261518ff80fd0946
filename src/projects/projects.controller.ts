import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { RequestAudit, type AuditContext } from '../audit/audit-context.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { RequirePermission, UsesPolicy } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { ListProjectsQueryDto } from './dto/list-projects-query.dto.js';
import { CreateProjectDto, PutMemberDto, UpdateProjectDto } from './dto/project-input.dto.js';
import {
  ProjectDto,
  ProjectListResponseDto,
  ProjectMemberDto,
  ProjectMemberListResponseDto,
  ProjectMemberResponseDto,
  ProjectResponseDto,
} from './dto/project-response.dto.js';
import { ProjectsService } from './projects.service.js';

@ApiTags('projects')
@ApiBearerAuth()
@UsesPolicy('project')
@Controller('api/projects')
export class ProjectsController {
  constructor(private readonly projects: ProjectsService) {}

  @Get()
  @ApiOperation({
    summary: "List the caller's projects",
    description:
      "The projects the caller is a member of, each with the caller's role; for a user whose role grants " +
      'projects:manage, every project (role null where they are not a member). By name, then id. ' +
      'totalPages = ceil(total / limit); a page past the end answers 200 with an empty list and the true total. ' +
      'Repeated or unknown query parameters are rejected with 400.',
  })
  @ApiOkResponse({ type: ProjectListResponseDto })
  @ApiErrors('unauthorized')
  async list(
    @Query() query: ListProjectsQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<ProjectListResponseDto> {
    const { projects, total } = await this.projects.list(user, query.page, query.limit);
    return {
      projects: projects.map(({ project, role }) => ProjectDto.from(project, role)),
      pagination: PaginationDto.of(query.page, query.limit, total, null),
    };
  }

  @Post()
  @RequirePermission('projects:manage')
  @ApiOperation({
    summary: 'Create a project',
    description:
      'For users whose role grants projects:manage. The creator becomes the manager of the new project. ' +
      'Names need not be unique.',
  })
  @ApiCreatedResponse({
    type: ProjectResponseDto,
    headers: { Location: { description: 'URL of the new project', schema: { type: 'string' } } },
  })
  @ApiErrors('unauthorized', 'forbidden')
  @Idempotent()
  async create(
    @Body() body: CreateProjectDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() context: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProjectResponseDto> {
    const { project, role } = await this.projects.create(body, user, context);
    void reply.header('location', `/api/projects/${project.id}`);
    return { project: ProjectDto.from(project, role) };
  }

  @Get(':projectId')
  @ApiOperation({
    summary: 'Read a project',
    description: "Visible to its members and to projects:manage; includes the caller's role.",
  })
  @ApiParam({ name: 'projectId', format: 'uuid' })
  @ApiOkResponse({ type: ProjectResponseDto })
  @ApiErrors('unauthorized', 'project_not_found')
  async get(
    @Param('projectId', uuidParam('projectId')) projectId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<ProjectResponseDto> {
    const { project, role } = await this.projects.get(projectId, user);
    return { project: ProjectDto.from(project, role) };
  }

  @Patch(':projectId')
  @ApiOperation({
    summary: 'Change the name or description of a project',
    description:
      'Partial update by a manager of the project or projects:manage: fields left out keep their value; ' +
      '{} changes nothing and answers the project.',
  })
  @ApiParam({ name: 'projectId', format: 'uuid' })
  @ApiOkResponse({ type: ProjectResponseDto })
  @ApiErrors('unauthorized', 'forbidden', 'project_not_found')
  async update(
    @Param('projectId', uuidParam('projectId')) projectId: string,
    @Body() body: UpdateProjectDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() context: AuditContext,
  ): Promise<ProjectResponseDto> {
    const { project, role } = await this.projects.update(projectId, body, user, context);
    return { project: ProjectDto.from(project, role) };
  }

  @Get(':projectId/members')
  @ApiOperation({
    summary: 'List the members of a project',
    description: 'Every member with their project role, by username. Visible to any member and to projects:manage.',
  })
  @ApiParam({ name: 'projectId', format: 'uuid' })
  @ApiOkResponse({ type: ProjectMemberListResponseDto })
  @ApiErrors('unauthorized', 'project_not_found')
  async members(
    @Param('projectId', uuidParam('projectId')) projectId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<ProjectMemberListResponseDto> {
    const members = await this.projects.members(projectId, user);
    return { members: members.map((member) => ProjectMemberDto.from(member)) };
  }

  @Put(':projectId/members/:userId')
  @ApiOperation({
    summary: 'Add a member or change their role',
    description:
      'By a manager of the project or projects:manage. Adding a user notifies them (project.member_added); ' +
      'giving a member the role they already have changes nothing. Demoting the last manager is refused ' +
      '(409 last_manager): make another member a manager first.',
  })
  @ApiParam({ name: 'projectId', format: 'uuid' })
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiOkResponse({ type: ProjectMemberResponseDto })
  @ApiErrors('unauthorized', 'forbidden', 'user_not_found', 'project_not_found', 'conflict', 'last_manager')
  async putMember(
    @Param('projectId', uuidParam('projectId')) projectId: string,
    @Param('userId', uuidParam('userId')) userId: string,
    @Body() body: PutMemberDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() context: AuditContext,
  ): Promise<ProjectMemberResponseDto> {
    const member = await this.projects.putMember(projectId, userId, body.role, user, context);
    return { member: ProjectMemberDto.from(member) };
  }

  @Delete(':projectId/members/:userId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Remove a member',
    description:
      'By a manager of the project or projects:manage; any member may also remove themselves (leave). ' +
      'Removing the last manager is refused (409 last_manager).',
  })
  @ApiParam({ name: 'projectId', format: 'uuid' })
  @ApiParam({ name: 'userId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Removed' })
  @ApiErrors('unauthorized', 'forbidden', 'project_not_found', 'member_not_found', 'last_manager')
  async removeMember(
    @Param('projectId', uuidParam('projectId')) projectId: string,
    @Param('userId', uuidParam('userId')) userId: string,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() context: AuditContext,
  ): Promise<void> {
    await this.projects.removeMember(projectId, userId, user, context);
  }
}
