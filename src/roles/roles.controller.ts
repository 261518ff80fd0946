import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Res } from '@nestjs/common';
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
import { RequirePermission } from '../common/http/route-access.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { RoleResponseDto } from '../users/dto/user-response.dto.js';
import { CreateRoleDto, UpdateRoleDto } from './dto/role-input.dto.js';
import { RoleEnvelopeDto, RoleListResponseDto } from './dto/role-response.dto.js';
import { RolesService } from './roles.service.js';

const ROLE_ID = { name: 'roleId', format: 'uuid', example: '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b' } as const;

/** Role administration: every route needs roles:manage, and every change is audited. */
@ApiTags('roles')
@ApiBearerAuth()
@RequirePermission('roles:manage')
@ApiErrors('unauthorized', 'forbidden')
@Controller('api/roles')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get()
  @ApiOperation({ summary: 'List roles', description: 'Every role with its permissions, by name.' })
  @ApiOkResponse({ type: RoleListResponseDto })
  @ApiErrors()
  async list(): Promise<RoleListResponseDto> {
    return { roles: (await this.roles.list()).map((role) => RoleResponseDto.from(role)) };
  }

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a role',
    description: 'Answers 201 with Location: /api/roles/{id}. Permissions use only the catalogue.',
  })
  @ApiCreatedResponse({ type: RoleEnvelopeDto })
  @ApiErrors('conflict')
  async create(
    @Body() body: CreateRoleDto,
    @RequestAudit() context: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RoleEnvelopeDto> {
    const role = await this.roles.create(body, context);
    void reply.header('location', `/api/roles/${role.id}`);
    return { role: RoleResponseDto.from(role) };
  }

  @Patch(':roleId')
  @ApiParam(ROLE_ID)
  @ApiOperation({
    summary: 'Change a role',
    description:
      'Omitted fields keep their value; permissions replaces the whole object. Holders get the new permissions ' +
      'on their next request. Taking users:manage from the last active holder is 409 last_admin.',
  })
  @ApiOkResponse({ type: RoleEnvelopeDto })
  @ApiErrors('role_not_found', 'conflict', 'last_admin')
  async update(
    @Param('roleId', uuidParam('roleId')) id: string,
    @Body() body: UpdateRoleDto,
    @RequestAudit() context: AuditContext,
  ): Promise<RoleEnvelopeDto> {
    return { role: RoleResponseDto.from(await this.roles.update(id, body, context)) };
  }

  @Delete(':roleId')
  @HttpCode(204)
  @ApiParam(ROLE_ID)
  @ApiOperation({ summary: 'Delete a role', description: 'Only a role nobody holds (else 409 role_in_use).' })
  @ApiNoContentResponse({ description: 'The role is deleted.' })
  @ApiErrors('role_not_found', 'role_in_use')
  async delete(@Param('roleId', uuidParam('roleId')) id: string, @RequestAudit() context: AuditContext): Promise<void> {
    await this.roles.delete(id, context);
  }
}
