import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { ApiErrors } from '../common/errors/api-errors.decorator.js';
import { Public } from '../common/http/route-access.js';

/** Terminus' answer for the one indicator this service checks. */
const DATABASE_UP = {
  type: 'object' as const,
  properties: {
    database: {
      type: 'object' as const,
      properties: {
        status: { type: 'string' as const, enum: ['up'] },
        responseTime: { type: 'number' as const, minimum: 0, description: 'Milliseconds the ping took' },
        cachedResponse: { type: 'boolean' as const, description: 'True when a recent check was reused' },
      },
      required: ['status'],
      additionalProperties: false,
    },
  },
  required: ['database'],
  additionalProperties: false,
};

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get('live')
  @ApiOperation({
    summary: 'Liveness: the process is up and answering',
    description: 'Touches no dependency: a failure here means the process should be restarted. No token needed.',
  })
  @ApiOkResponse({
    description: 'The process answers.',
    schema: {
      type: 'object',
      properties: { status: { type: 'string', enum: ['ok'], example: 'ok' } },
      required: ['status'],
      additionalProperties: false,
    },
  })
  @ApiErrors()
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  // Its own Swagger schema allows any properties; the one below states what this service answers.
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({
    summary: 'Readiness: the database answers a ping within 1.5 s',
    description: 'Send traffic to this instance only while this answers 200. No token needed.',
  })
  @ApiOkResponse({
    description: 'The database answered.',
    schema: {
      type: 'object',
      properties: {
        status: { type: 'string', enum: ['ok'] },
        info: DATABASE_UP,
        error: { type: 'object', properties: {}, additionalProperties: false },
        details: DATABASE_UP,
      },
      required: ['status', 'info', 'error', 'details'],
      additionalProperties: false,
    },
  })
  @ApiErrors()
  ready() {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 1500 })]);
  }
}
