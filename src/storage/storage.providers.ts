import type { Provider } from '@nestjs/common';
import { storageConfig, type StorageConfig } from '../config/configuration.js';
import { FileStore } from './file-store.js';
import { LocalFileStore } from './local-file-store.js';
import { PendingFilesRepository } from './pending-files.repository.js';
import { createS3Client, S3FileStore } from './s3-file-store.js';
import { StoredFileReferences, StoredFiles } from './stored-files.js';

/** The driver STORAGE_DRIVER names: a directory (fs) or an S3-compatible bucket (s3). */
export function createFileStore(storage: StorageConfig): FileStore {
  if (storage.s3) {
    const { bucket, presignedDownloads } = storage.s3;
    return new S3FileStore(createS3Client(storage.s3), bucket, storage.instanceId, presignedDownloads);
  }
  return new LocalFileStore(storage.dir, storage.instanceId);
}

/**
 * The configured store (its onModuleInit removes what a crash left among the temporary files)
 * and its collector, which asks every StoredFileReferenceSource registered with StoredFileReferences.
 */
export const STORAGE_PROVIDERS: Provider[] = [
  { provide: FileStore, inject: [storageConfig.KEY], useFactory: createFileStore },
  PendingFilesRepository,
  StoredFiles,
  StoredFileReferences,
];
