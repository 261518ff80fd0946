import { Controller, Delete, Get, HttpCode, Param, Put } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBearerAuth,
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import type { AuthenticatedUser } from '../common/authz/authenticated-user.js';
import { CurrentUser } from '../common/authz/current-user.decorator.js';
import { Authenticated, UsesPolicy } from '../common/http/route-access.js';
import { BODYLESS_ROUTE } from '../common/http/transfer-routes.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { WatchesResponseDto } from './dto/watches.dto.js';
import { WatchesService } from './watches.service.js';

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
  @ApiErrors(
    'invalid_json',
    'unauthorized',
    'document_not_found',
    'request_timeout',
    'payload_too_large',
    'unsupported_media_type',
  )
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
  @ApiErrors('unauthorized', 'document_not_found')
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
  @ApiErrors(
    'invalid_json',
    'unauthorized',
    'document_not_found',
    'request_timeout',
    'payload_too_large',
    'unsupported_media_type',
  )
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
  @ApiErrors('unauthorized', 'document_not_found')
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
  @ApiErrors(
    'invalid_json',
    'unauthorized',
    'project_not_found',
    'request_timeout',
    'payload_too_large',
    'unsupported_media_type',
  )
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
  @ApiErrors('unauthorized', 'project_not_found')
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
  @ApiErrors('unauthorized')
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
