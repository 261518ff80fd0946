import { ConsoleLogger } from '@nestjs/common';
import type { AppConfig } from '../../config/app.config.js';

export function createLogger(config: AppConfig): ConsoleLogger {
  const levels = { fatal: ['fatal'], error: ['fatal', 'error'], warn: ['fatal', 'error', 'warn'] } as const;
  return new ConsoleLogger({
    json: true,
    logLevels:
      config.logLevel === 'silent'
        ? []
        : [...(levels[config.logLevel as keyof typeof levels] ?? ['fatal', 'error', 'warn', 'log'])],
  });
}
