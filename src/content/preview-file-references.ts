import { Injectable, type OnModuleInit } from '@nestjs/common';
import type { Tx } from '../database/transactions.js';
import { StoredFileReferences, type StoredFileReferenceSource } from '../storage/stored-files.js';
import { ContentRepository } from './content.repository.js';

/**
 * Previews name stored files too: registered with the collector so it spares them. Provided by
 * ContentModule and by the storage CLIs' module (trash:purge collects files as the service does).
 */
@Injectable()
export class PreviewFileReferences implements StoredFileReferenceSource, OnModuleInit {
  constructor(
    private readonly references: StoredFileReferences,
    private readonly contents: ContentRepository,
  ) {}

  onModuleInit(): void {
    this.references.register(this);
  }

  referencedAmong(hashes: readonly string[], tx: Tx): Promise<string[]> {
    return this.contents.previewsNaming(hashes, tx);
  }
}
