import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { from, mergeMap, type Observable } from 'rxjs';
import { searchWords } from '../documents/documents.service.js';
import { contentJobSubject } from '../jobs/content-extraction-job.js';
import type { ContentStateDto, DocumentMatchDto, MatchField } from '../documents/dto/document-content.dto.js';
import { ContentService, type ContentState } from './content.service.js';
import { snippet } from './snippets.js';

/** The fields of a document answer this interceptor reads and adds. */
interface DocumentAnswer {
  id: string;
  currentVersion: number;
  title: string;
  description: string;
  tags: string[];
  fileName: string;
  content?: ContentStateDto;
  matches?: DocumentMatchDto[];
}

function isDocumentAnswer(value: unknown): value is DocumentAnswer {
  const candidate = value as Partial<DocumentAnswer> | null;
  return typeof candidate?.id === 'string' && typeof candidate.currentVersion === 'number';
}

/**
 * Adds to every document in an answer of /api/documents… (and of a saved search's run) its current version's `content` state,
 * and to each result of a `q` search its `matches` (where the words are, with snippets). Here
 * rather than in the documents feature, which answers the documents and knows nothing of content.
 */
@Injectable()
export class ContentAnswersInterceptor implements NestInterceptor {
  constructor(private readonly content: ContentService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (!request.url.startsWith('/api/documents') && !request.url.startsWith('/api/saved-searches/')) {
      return next.handle();
    }
    const q = (request.query as { q?: unknown } | undefined)?.q;
    const isSearch = request.method === 'GET' && request.routeOptions.url === '/api/documents' && typeof q === 'string';
    return next.handle().pipe(mergeMap((body) => from(this.complete(body, isSearch ? searchWords(q) : undefined))));
  }

  private async complete(body: unknown, words: string[] | undefined): Promise<unknown> {
    if (typeof body !== 'object' || body === null) return body;
    const { document, documents } = body as { document?: unknown; documents?: unknown };
    const answers = [document, ...(Array.isArray(documents) ? (documents as unknown[]) : [])].filter(isDocumentAnswer);
    if (answers.length === 0) return body;
    // The document list reads the states with its page: only what an answer lacks is read here.
    const missing = answers.filter((answer) => answer.content === undefined);
    const withText = Boolean(words?.length);
    const read = withText ? answers : missing;
    if (read.length === 0) return body;
    const { states, texts } = await this.content.states(
      read.map((answer) => ({ documentId: answer.id, version: answer.currentVersion })),
      withText,
    );
    for (const answer of missing) {
      answer.content = contentStateDto(states.get(contentJobSubject(answer.id, answer.currentVersion))!);
    }
    if (words?.length) {
      for (const answer of answers) {
        answer.matches = matchesOf(answer, texts.get(contentJobSubject(answer.id, answer.currentVersion)) ?? '', words);
      }
    }
    return body;
  }
}

function contentStateDto(state: ContentState): ContentStateDto {
  return {
    status: state.status,
    pages: state.pages,
    characters: state.characters,
    extractedAt: state.extractedAt?.toISOString() ?? null,
    error: state.error,
  };
}

/** The document's fields that hold a search word, each with its snippet. */
function matchesOf(answer: DocumentAnswer, text: string, words: readonly string[]): DocumentMatchDto[] {
  const fields: [MatchField, string][] = [
    ['title', answer.title],
    ['description', answer.description],
    ['tags', answer.tags.join(', ')],
    ['fileName', answer.fileName],
    ['content', text],
  ];
  const matches: DocumentMatchDto[] = [];
  for (const [field, value] of fields) {
    const found = snippet(value, words);
    if (found !== null) matches.push({ field, snippet: found });
  }
  return matches;
}
