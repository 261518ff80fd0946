import { ConfigError } from './config-error.js';
import type { EnvironmentVariables } from './environment.js';

/** S3 copies an object in one request up to 5 GiB; the S3 driver places every upload with one copy. */
export const S3_MAX_UPLOAD_BYTES = 5 * 1024 * 1024 * 1024;

/** The S3 settings of the storage configuration (STORAGE_DRIVER=s3). */
export interface S3Settings {
  /** Unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  bucket: string;
  region: string;
  /** Both unset: the AWS SDK's default credential chain (environment, instance role, …). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  /** http://host/bucket/key instead of http://bucket.host/key (MinIO, Swift, SeaweedFS and the like). */
  forcePathStyle: boolean;
  /** Downloads answer a redirect to a short-lived presigned URL instead of streaming through the service. */
  presignedDownloads: boolean;
}

/** The S3 settings, checked together: every rule broken is named in the one ConfigError. */
export function objectStorageSettings(env: EnvironmentVariables): S3Settings {
  const problems: string[] = [];
  if (!env.S3_BUCKET) problems.push('S3_BUCKET is required when STORAGE_DRIVER=s3');
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or both left unset)');
  }
  if (env.UPLOAD_MAX_BYTES > S3_MAX_UPLOAD_BYTES) {
    problems.push(`UPLOAD_MAX_BYTES must be at most ${S3_MAX_UPLOAD_BYTES} (5 GiB) when STORAGE_DRIVER=s3`);
  }
  if (problems.length) throw new ConfigError(problems.join('; '));
  return {
    endpoint: env.S3_ENDPOINT,
    bucket: env.S3_BUCKET!,
    region: env.S3_REGION,
    accessKeyId: env.S3_ACCESS_KEY_ID,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
    presignedDownloads: env.S3_PRESIGNED_DOWNLOADS,
  };
}
