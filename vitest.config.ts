import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// SWC compiles the tests so that decorator metadata (emitDecoratorMetadata) exists, which Nest DI
// and TypeORM column inference need; esbuild, Vite's default, drops it.
const swcPlugin = () =>
  swc.vite({
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      target: 'es2023',
      keepClassNames: true,
    },
    module: { type: 'es6' },
  });

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [swcPlugin()],
        test: {
          name: 'unit',
          include: ['src/**/*.spec.ts'],
          environment: 'node',
          pool: 'threads',
          // Repository specs migrate a real database first; that takes what the machine takes.
          hookTimeout: 120_000,
          sequence: { groupOrder: 0 },
        },
      },
      {
        plugins: [swcPlugin()],
        test: {
          name: 'e2e',
          include: ['test/**/*.e2e-spec.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          // Fails a test whose responses do not match the OpenAPI document (test/support/openapi-response-validator.ts).
          setupFiles: ['test/support/openapi-response-check.setup.ts'],
          environment: 'node',
          // better-sqlite3 is a native addon and each suite owns a database: one process per file.
          pool: 'forks',
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          // Generous: a test is bounded by its own waits; this only ends a hung one, on however slow a machine.
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
