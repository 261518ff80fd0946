import { execFileSync } from 'node:child_process';

/** Builds dist/ once before the e2e suites that run the real entry points as processes. */
export default function buildOnce(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
