import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import type { TestS3 } from './object-storage.js';
import { startSwiftS3, type SwiftS3 } from './swift.js';

/**
 * Once per e2e run: builds dist/ (for the suites that run the real entry points as processes) and
 * starts the S3 engine the S3-driver suites share (each app gets its own bucket): TEST_S3_ENDPOINT
 * when set (with TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET_ACCESS_KEY, TEST_S3_REGION), else a private
 * Swift (test/support/swift.ts), stopped when the run ends. Without Swift installed, outside CI,
 * the S3-driver suites are left out (storageSetupsUnderTest).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  let swift: SwiftS3 | undefined;
  let s3: TestS3 | undefined;
  if (process.env.TEST_S3_ENDPOINT) {
    s3 = {
      endpoint: process.env.TEST_S3_ENDPOINT,
      region: process.env.TEST_S3_REGION ?? 'us-east-1',
      accessKeyId: process.env.TEST_S3_ACCESS_KEY_ID ?? '',
      secretAccessKey: process.env.TEST_S3_SECRET_ACCESS_KEY ?? '',
    };
  } else if (process.env.CI === 'true' || swiftInstalled()) {
    swift = await startSwiftS3();
    s3 = {
      endpoint: swift.endpoint,
      region: swift.region,
      accessKeyId: swift.accessKeyId,
      secretAccessKey: swift.secretAccessKey,
    };
  }
  project.provide('s3', s3);
  return async () => {
    await swift?.stop();
  };
}

function swiftInstalled(): boolean {
  try {
    execFileSync('swift-ring-builder', [], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // Without arguments it prints its usage and exits 1; only a missing command is ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}
