import { Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { ApiCommonErrors } from '../common/errors/api-errors.decorator.js';
import { ErrorResponseDto } from '../common/errors/error-response.dto.js';
import { Authenticated, UsesPolicy } from '../common/http/route-access.js';
import { BODYLESS_ROUTE } from '../common/http/transfer-routes.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { WatchesResponseDto } from './dto/watches.dto.js';
import { WatchesService } from './watches.service.js';

const DOCUMENT_NOT_FOUND = {
  type: ErrorResponseDto,
  description: 'document_not_found (also for a document the caller may not read)',
};
const PROJECT_NOT_FOUND = {
  type: ErrorResponseDto,
  description: 'project_not_found (also for a project the caller does not see)',
};
const BAD_ID = { type: ErrorResponseDto, description: 'validation_failed: the id is not a UUID' };
const UNAUTHORIZED = { type: ErrorResponseDto, description: 'unauthorized' };
/** These PUTs carry nothing: no body (and no content-type), or `{}`. */
const NO_BODY = {
  required: false,
  description: 'None: send no body (or `{}`; nothing in it is read)',
  schema: { type: 'object' as const, maxProperties: 0, example: {} },
};

@ApiTags('watches')
@ApiBearerAuth()
@Controller('api')
export class WatchesController {
  constructor(private readonly watches: WatchesService) {}

  @Put('documents/:documentId/watch')
  @UsesPolicy('document')
  @HttpCode(204)
  @RouteConfig(BODYLESS_ROUTE)
  @ApiBody(NO_BODY)
  @ApiOperation({
    summary: 'Watch a document',
    description:
      'The caller hears of every event of the document, as its participants do (a mute is replaced). ' +
      'Readers only; idempotent.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Watching' })
  @ApiBadRequestResponse(BAD_ID)
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiNotFoundResponse(DOCUMENT_NOT_FOUND)
  @ApiCommonErrors({ body: true })
  async watchDocument(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<void> {
    await this.watches.setDocumentState(documentId, 'watching', user);
  }

  @Delete('documents/:documentId/watch')
  @UsesPolicy('document')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Stop watching a document',
    description: 'Participants still hear of it (mute to stop that). Readers only; idempotent; a mute is kept.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Not watching' })
  @ApiBadRequestResponse(BAD_ID)
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiNotFoundResponse(DOCUMENT_NOT_FOUND)
  @ApiCommonErrors()
  async unwatchDocument(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<void> {
    await this.watches.clearDocumentState(documentId, 'watching', user);
  }

  @Put('documents/:documentId/mute')
  @UsesPolicy('document')
  @HttpCode(204)
  @RouteConfig(BODYLESS_ROUTE)
  @ApiBody(NO_BODY)
  @ApiOperation({
    summary: 'Mute a document',
    description:
      'The caller hears of none of its events, whether participant, project watcher or project member ' +
      '(a watch is replaced). Readers only; idempotent.',
  })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Muted' })
  @ApiBadRequestResponse(BAD_ID)
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiNotFoundResponse(DOCUMENT_NOT_FOUND)
  @ApiCommonErrors({ body: true })
  async muteDocument(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<void> {
    await this.watches.setDocumentState(documentId, 'muted', user);
  }

  @Delete('documents/:documentId/mute')
  @UsesPolicy('document')
  @HttpCode(204)
  @ApiOperation({ summary: 'Unmute a document', description: 'Readers only; idempotent.' })
  @ApiParam({ name: 'documentId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Not muted' })
  @ApiBadRequestResponse(BAD_ID)
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiNotFoundResponse(DOCUMENT_NOT_FOUND)
  @ApiCommonErrors()
  async unmuteDocument(
    @Param('documentId', uuidParam('documentId')) documentId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<void> {
    await this.watches.clearDocumentState(documentId, 'muted', user);
  }

  @Put('projects/:projectId/watch')
  @UsesPolicy('project')
  @HttpCode(204)
  @RouteConfig(BODYLESS_ROUTE)
  @ApiBody(NO_BODY)
  @ApiOperation({
    summary: 'Watch a project',
    description:
      'The caller hears of every event of the documents of the project they may read. Those who see the ' +
      'project only (members, projects:manage); idempotent.',
  })
  @ApiParam({ name: 'projectId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Watching' })
  @ApiBadRequestResponse(BAD_ID)
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiNotFoundResponse(PROJECT_NOT_FOUND)
  @ApiCommonErrors({ body: true })
  async watchProject(
    @Param('projectId', uuidParam('projectId')) projectId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<void> {
    await this.watches.watchProject(projectId, user);
  }

  @Delete('projects/:projectId/watch')
  @UsesPolicy('project')
  @HttpCode(204)
  @ApiOperation({ summary: 'Stop watching a project', description: 'Those who see the project only; idempotent.' })
  @ApiParam({ name: 'projectId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Not watching' })
  @ApiBadRequestResponse(BAD_ID)
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiNotFoundResponse(PROJECT_NOT_FOUND)
  @ApiCommonErrors()
  async unwatchProject(
    @Param('projectId', uuidParam('projectId')) projectId: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<void> {
    await this.watches.unwatchProject(projectId, user);
  }

  @Get('auth/me/watches')
  @Authenticated()
  @ApiOperation({
    summary: 'What the caller watches and mutes',
    description: 'Documents (watching or muted) and projects, newest first.',
  })
  @ApiOkResponse({ type: WatchesResponseDto })
  @ApiUnauthorizedResponse(UNAUTHORIZED)
  @ApiCommonErrors()
  async mine(@CurrentUser() user: AuthenticatedUser): Promise<WatchesResponseDto> {
    const { documents, projects } = await this.watches.of(user.id);
    return {
      documents: documents.map((row) => ({
        documentId: row.documentId,
        title: row.title,
        state: row.state,
        since: row.createdAt.toISOString(),
      })),
      projects: projects.map((row) => ({
        projectId: row.projectId,
        name: row.name,
        since: row.createdAt.toISOString(),
      })),
    };
  }
}
