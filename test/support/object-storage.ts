import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { inject } from 'vitest';
import type { StorageConfig } from '../../src/config/configuration.js';
import { createS3Client } from '../../src/storage/s3-file-store.js';
import { databasesUnderTest, type DatabaseKind } from './databases.js';

export type StorageDriver = 'fs' | 's3';

/** The S3 engine of this test run (global-setup.ts: a private Swift, or TEST_S3_ENDPOINT). */
export interface TestS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** Undefined when no S3 engine could be started (outside CI only). */
    s3: TestS3 | undefined;
  }
}

/**
 * The (database, storage driver) pairs the document file suites run on: the file store on every
 * database, and the S3 driver on SQLite (the driver's database side is the same code on both).
 * Under CI=true a missing S3 engine is an error, never a silent skip.
 */
export function storageSetupsUnderTest(): { kind: DatabaseKind; driver: StorageDriver }[] {
  const setups = databasesUnderTest().map((kind) => ({ kind, driver: 'fs' as StorageDriver }));
  if (inject('s3')) setups.push({ kind: 'sqlite', driver: 's3' });
  else if (process.env.CI === 'true') throw new Error('CI=true but no S3 engine was started for the e2e tests.');
  return setups;
}

/** The environment of an app on the S3 driver, in a new bucket of its own; `drop()` empties and deletes it. */
export async function createTestBucket(): Promise<{ env: Record<string, string>; drop(): Promise<void> }> {
  const s3 = inject('s3');
  if (!s3) throw new Error('No S3 engine for the tests (see test/support/global-setup.ts).');
  const bucket = `dms-test-${randomBytes(6).toString('hex')}`;
  const env = {
    STORAGE_DRIVER: 's3',
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_FORCE_PATH_STYLE: 'true',
  };
  const client = testS3Client(env);
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    env,
    async drop() {
      try {
        for (const key of await listKeys(client, bucket)) {
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
        }
        await client.send(new DeleteBucketCommand({ Bucket: bucket }));
      } finally {
        client.destroy();
      }
    },
  };
}

function testS3Client(env: Record<string, string>): S3Client {
  return createS3Client({
    endpoint: env.S3_ENDPOINT,
    bucket: env.S3_BUCKET,
    region: env.S3_REGION,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    forcePathStyle: true,
    presignedDownloads: false,
  });
}

async function listKeys(client: S3Client, bucket: string, prefix?: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).map((object) => object.Key!));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

/**
 * The stored bytes of an app, read and damaged behind its back, whichever its driver: what the
 * fault, collector and verify suites do to files on disk, done to objects in the bucket alike.
 */
export interface StoredBytes {
  has(sha256: string): Promise<boolean>;
  read(sha256: string): Promise<Buffer | undefined>;
  /** Writes (or overwrites) the bytes stored under `sha256`, whatever they are. */
  write(sha256: string, bytes: Buffer): Promise<void>;
  remove(sha256: string): Promise<void>;
  /** Keeps the first `size` bytes. */
  truncate(sha256: string, size: number): Promise<void>;
  /** Every stored sha256, sorted. */
  files(): Promise<string[]>;
  /** The temporary files and unfinished multipart uploads (names), sorted. */
  temporary(): Promise<string[]>;
  close(): void;
}

export function storedBytes(storage: StorageConfig, env: Record<string, string>): StoredBytes {
  return storage.driver === 's3' ? bucketBytes(env) : directoryBytes(storage.dir);
}

function directoryBytes(root: string): StoredBytes {
  const pathOf = (sha256: string) => join(root, sha256.slice(0, 2), sha256.slice(2, 4), sha256);
  const walk = (directory: string, depth: number): string[] =>
    readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
      if (depth === 0 && entry.name === 'tmp') return [];
      if (entry.isDirectory()) return walk(join(directory, entry.name), depth + 1);
      return [entry.name];
    });
  return {
    has: (sha256) => Promise.resolve(existsSync(pathOf(sha256))),
    read: (sha256) => Promise.resolve(existsSync(pathOf(sha256)) ? readFileSync(pathOf(sha256)) : undefined),
    write: (sha256, bytes) => {
      mkdirSync(dirname(pathOf(sha256)), { recursive: true });
      writeFileSync(pathOf(sha256), bytes);
      return Promise.resolve();
    },
    remove: (sha256) => Promise.resolve(unlinkSync(pathOf(sha256))),
    truncate: (sha256, size) => Promise.resolve(truncateSync(pathOf(sha256), size)),
    files: () => Promise.resolve(existsSync(root) ? walk(root, 0).sort() : []),
    temporary: () => Promise.resolve(existsSync(join(root, 'tmp')) ? readdirSync(join(root, 'tmp')).sort() : []),
    close: () => undefined,
  };
}

function bucketBytes(env: Record<string, string>): StoredBytes {
  const client = testS3Client(env);
  const Bucket = env.S3_BUCKET;
  const read = async (sha256: string): Promise<Buffer | undefined> => {
    try {
      const answer = await client.send(new GetObjectCommand({ Bucket, Key: sha256 }));
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
      throw error;
    }
  };
  const write = async (sha256: string, bytes: Buffer) => {
    await client.send(new PutObjectCommand({ Bucket, Key: sha256, Body: bytes }));
  };
  return {
    has: (sha256) =>
      client.send(new HeadObjectCommand({ Bucket, Key: sha256 })).then(
        () => true,
        () => false,
      ),
    read,
    write,
    remove: async (sha256) => {
      await client.send(new DeleteObjectCommand({ Bucket, Key: sha256 }));
    },
    truncate: async (sha256, size) => write(sha256, (await read(sha256))!.subarray(0, size)),
    files: async () => (await listKeys(client, Bucket)).filter((key) => !key.startsWith('tmp/')).sort(),
    temporary: async () => {
      const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: 'tmp/' }));
      const pending = (uploads.Uploads ?? []).map((upload) => `${upload.Key!} (multipart upload)`);
      return [...(await listKeys(client, Bucket, 'tmp/')), ...pending].sort();
    },
    close: () => client.destroy(),
  };
}

/** The storage variables of an app's environment, for a CLI process run against the same store. */
export function storageEnvOf(env: Record<string, string>): Record<string, string> {
  return {
    ...Object.fromEntries(
      Object.entries(env).filter(
        ([name]) => name === 'STORAGE_DIR' || name === 'STORAGE_DRIVER' || name.startsWith('S3_'),
      ),
    ),
    // The SDK warns on stderr, once per process, that its 2027 releases will need Node 22.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}
