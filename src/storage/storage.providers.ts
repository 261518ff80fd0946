import type { Provider } from '@nestjs/common';
import { storageConfig, type StorageConfig } from '../config/configuration.js';
import { FILE_STORE_ROOT, FileStore } from './file-store.js';
import { PendingFilesRepository } from './pending-files.repository.js';
import { StoredFiles } from './stored-files.js';

/**
 * The store under STORAGE_DIR (its onModuleInit removes what a crash left in tmp/) and its
 * collector. The feature whose rows name files also provides STORED_FILE_REFERENCES.
 */
export const STORAGE_PROVIDERS: Provider[] = [
  { provide: FILE_STORE_ROOT, inject: [storageConfig.KEY], useFactory: (storage: StorageConfig) => storage.dir },
  FileStore,
  PendingFilesRepository,
  StoredFiles,
];
