import { Injectable } from '@nestjs/common';
import { DocumentsRepository } from './documents.repository.js';

/** What other features ask about a document's people: who takes part in it (uploader and every editor). */
@Injectable()
export class DocumentParticipants {
  constructor(private readonly documents: DocumentsRepository) {}

  of(documentId: string): Promise<string[]> {
    return this.documents.participantIds(documentId);
  }
}
