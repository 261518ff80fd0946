import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
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
import { RequirePermission } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { ListUsersQueryDto } from './dto/list-users-query.dto.js';
import { CreateUserDto, SetPasswordDto, UpdateUserDto } from './dto/user-input.dto.js';
import { UserEnvelopeDto, UserListResponseDto, UserResponseDto } from './dto/user-response.dto.js';
import { UsersService } from './users.service.js';

const USER_ID = { name: 'userId', format: 'uuid', example: '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed' } as const;

/** User administration: every route needs users:manage, and every change is audited. */
@ApiTags('users')
@ApiBearerAuth()
@RequirePermission('users:manage')
@ApiErrors('unauthorized', 'forbidden')
@Controller('api/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a user',
    description:
      'The user is active and holds exactly roleIds. The e-mail domain is stored in lower case. The password ' +
      'policy applies (400 weak_password with zxcvbn feedback). A username or e-mail equal to an existing one ' +
      'ignoring case and Unicode form is 409 conflict. Answers 201 with Location: /api/users/{id}.',
  })
  @ApiCreatedResponse({ type: UserEnvelopeDto })
  @ApiErrors('weak_password', 'conflict')
  @Idempotent()
  async create(
    @Body() body: CreateUserDto,
    @CurrentUser() actor: AuthenticatedUser,
    @RequestAudit() context: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<UserEnvelopeDto> {
    const user = await this.users.create(body, context, actor);
    void reply.header('location', `/api/users/${user.id}`);
    return { user: UserResponseDto.from(user) };
  }

  @Get()
  @ApiOperation({
    summary: 'List users',
    description:
      'Filters combine with AND: q matches the start of the username, e-mail, first or last name ignoring ' +
      'case; isActive; roleId. Sorted by username (case-folded), then id. page >= 1, limit 1-100 (default 20).',
  })
  @ApiOkResponse({ type: UserListResponseDto })
  @ApiErrors()
  async list(@Query() query: ListUsersQueryDto): Promise<UserListResponseDto> {
    const { users, total } = await this.users.list(query);
    return {
      users: users.map((user) => UserResponseDto.from(user)),
      pagination: PaginationDto.of(query.page, query.limit, total, null),
    };
  }

  @Get(':userId')
  @ApiParam(USER_ID)
  @ApiOperation({
    summary: 'Get a user',
    description: 'One user with their roles, active or not; never a password hash.',
  })
  @ApiOkResponse({ type: UserEnvelopeDto })
  @ApiErrors('user_not_found')
  async get(@Param('userId', uuidParam('userId')) id: string): Promise<UserEnvelopeDto> {
    return { user: UserResponseDto.from(await this.users.get(id)) };
  }

  @Patch(':userId')
  @ApiParam(USER_ID)
  @ApiOperation({
    summary: 'Change a user',
    description:
      'Omitted fields keep their value; null is invalid. isActive=false ends every token of the user at once. ' +
      'roleIds replaces the whole set and applies from the next request. Nobody may deactivate themselves or ' +
      'take users:manage from its last active holder (409 last_admin). The username cannot be changed.',
  })
  @ApiOkResponse({ type: UserEnvelopeDto })
  @ApiErrors('user_not_found', 'conflict', 'last_admin')
  async update(
    @Param('userId', uuidParam('userId')) id: string,
    @Body() body: UpdateUserDto,
    @CurrentUser() actor: AuthenticatedUser,
    @RequestAudit() context: AuditContext,
  ): Promise<UserEnvelopeDto> {
    return { user: UserResponseDto.from(await this.users.update(id, body, context, actor)) };
  }

  @Post(':userId/password')
  @HttpCode(204)
  @ApiParam(USER_ID)
  @ApiOperation({
    summary: "Set a user's password",
    description:
      'For an administrator resetting a password: the policy of POST /api/users applies, and every token the ' +
      'user holds stops working. The administrator does not need the old password.',
  })
  @ApiNoContentResponse({ description: 'The password is set and the user’s tokens are revoked.' })
  @ApiErrors('weak_password', 'user_not_found')
  async setPassword(
    @Param('userId', uuidParam('userId')) id: string,
    @Body() body: SetPasswordDto,
    @CurrentUser() actor: AuthenticatedUser,
    @RequestAudit() context: AuditContext,
  ): Promise<void> {
    await this.users.setPassword(id, body.newPassword, context, { actor });
  }
}
