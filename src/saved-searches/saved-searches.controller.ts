import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
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
import { Authenticated } from '../common/http/route-access.js';
import { PaginationDto } from '../common/pagination/pagination.dto.js';
import { uuidParam } from '../common/pipes/uuid.pipe.js';
import { encodeDocumentCursor } from '../documents/document-cursor.js';
import { DocumentListResponseDto } from '../documents/dto/document-list-response.dto.js';
import { DocumentDto } from '../documents/dto/document-response.dto.js';
import {
  CreateSavedSearchDto,
  ListSavedSearchesQueryDto,
  RunSavedSearchQueryDto,
  SavedSearchDto,
  SavedSearchListResponseDto,
  UpdateSavedSearchDto,
} from './dto/saved-search.dto.js';
import { SavedSearchesService } from './saved-searches.service.js';

@ApiTags('saved-searches')
@ApiBearerAuth()
@Authenticated()
@Controller('api/saved-searches')
export class SavedSearchesController {
  constructor(private readonly searches: SavedSearchesService) {}

  @Post()
  @ApiOperation({
    summary: 'Save a document search',
    description:
      'q and filters as GET /api/documents takes them. With alert, documents matching now are recorded as known; ' +
      'a document that matches later (created, or changed so that it matches, and readable by you) sends one ' +
      'search.matched notification through your channels and preferences.',
  })
  @ApiCreatedResponse({
    type: SavedSearchDto,
    headers: { Location: { description: 'URL of the new saved search', schema: { type: 'string' } } },
  })
  @ApiErrors('unauthorized')
  async create(
    @Body() body: CreateSavedSearchDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<SavedSearchDto> {
    const search = await this.searches.create(body, user, audit);
    void reply.header('location', `/api/saved-searches/${search.id}`);
    return SavedSearchDto.from(search);
  }

  @Get()
  @ApiOperation({ summary: 'List your saved searches', description: 'Oldest first, keyset-paginated with nextCursor.' })
  @ApiOkResponse({ type: SavedSearchListResponseDto })
  @ApiErrors('unauthorized')
  async list(
    @Query() query: ListSavedSearchesQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<SavedSearchListResponseDto> {
    const page = await this.searches.list(user, query.limit, query.cursor);
    return { savedSearches: page.searches.map((search) => SavedSearchDto.from(search)), nextCursor: page.nextCursor };
  }

  @Get(':savedSearchId')
  @ApiOperation({ summary: 'Read one of your saved searches', description: "Its owner only; anyone else's is 404." })
  @ApiParam({ name: 'savedSearchId', format: 'uuid' })
  @ApiOkResponse({ type: SavedSearchDto })
  @ApiErrors('unauthorized', 'saved_search_not_found')
  async get(
    @Param('savedSearchId', uuidParam('savedSearchId')) id: string,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<SavedSearchDto> {
    return SavedSearchDto.from(await this.searches.get(id, user));
  }

  @Patch(':savedSearchId')
  @ApiOperation({
    summary: 'Change a saved search',
    description: 'Changing q, filters or alert (on) records what matches now as known; alert off forgets matches.',
  })
  @ApiParam({ name: 'savedSearchId', format: 'uuid' })
  @ApiOkResponse({ type: SavedSearchDto })
  @ApiErrors('unauthorized', 'saved_search_not_found')
  async update(
    @Param('savedSearchId', uuidParam('savedSearchId')) id: string,
    @Body() body: UpdateSavedSearchDto,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<SavedSearchDto> {
    return SavedSearchDto.from(await this.searches.update(id, body, user, audit));
  }

  @Delete(':savedSearchId')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a saved search',
    description: 'With its recorded matches; no more alerts come from it.',
  })
  @ApiParam({ name: 'savedSearchId', format: 'uuid' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors('unauthorized', 'saved_search_not_found')
  async remove(
    @Param('savedSearchId', uuidParam('savedSearchId')) id: string,
    @CurrentUser() user: AuthenticatedUser,
    @RequestAudit() audit: AuditContext,
  ): Promise<void> {
    await this.searches.remove(id, user, audit);
  }

  @Get(':savedSearchId/documents')
  @ApiOperation({
    summary: 'Run a saved search',
    description: 'The document list (GET /api/documents) with the saved q and filters, paged as that list pages.',
  })
  @ApiParam({ name: 'savedSearchId', format: 'uuid' })
  @ApiOkResponse({ type: DocumentListResponseDto })
  @ApiErrors('unauthorized', 'saved_search_not_found')
  async run(
    @Param('savedSearchId', uuidParam('savedSearchId')) id: string,
    @Query() query: RunSavedSearchQueryDto,
    @CurrentUser() user: AuthenticatedUser,
  ): Promise<DocumentListResponseDto> {
    const { documents, total, totalIsExact, next } = await this.searches.run(id, query, user);
    return {
      documents: documents.map((document) => DocumentDto.from(document)),
      pagination: Object.assign(
        PaginationDto.of(
          query.cursor === undefined ? (query.page ?? 1) : null,
          query.limit,
          total,
          next ? encodeDocumentCursor(next) : null,
        ),
        { totalIsExact },
      ),
    };
  }
}
