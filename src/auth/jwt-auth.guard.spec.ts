import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { describe, expect, it } from 'vitest';
import { Public } from '../common/http/route-access.js';
import type { UsersService } from '../users/users.service.js';
import type { AccessTokens } from './access-tokens.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';

class Undeclared {
  handler(): void {}
}
class Open {
  @Public()
  handler(): void {}
}

function contextFor(controller: new () => { handler(): void }): ExecutionContext {
  return {
    getHandler: () => controller.prototype.handler,
    getClass: () => controller,
    switchToHttp: () => ({ getRequest: () => ({ headers: {} }) }),
  } as unknown as ExecutionContext;
}

describe('JwtAuthGuard', () => {
  const guard = new JwtAuthGuard(new Reflector(), {} as AccessTokens, {} as UsersService);

  it('refuses a route that declares no access rule (fail closed)', async () => {
    await expect(guard.canActivate(contextFor(Undeclared))).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('lets a public route through without a token', async () => {
    await expect(guard.canActivate(contextFor(Open))).resolves.toBe(true);
  });
});
