import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/** Who made a change and from where: the part of an audit event the request supplies. */
export interface AuditContext {
  /** The authenticated caller; null for an anonymous login attempt or a command-line tool. */
  actorId: string | null;
  /** The client address as Fastify sees it (TRUST_PROXY honoured); null outside HTTP. */
  ip: string | null;
  /** The request's X-Request-Id (echoed in the response and logged); null outside HTTP. */
  requestId: string | null;
}

/** The context of changes made by a command-line tool run by an operator on the server. */
export const CLI_AUDIT_CONTEXT: AuditContext = { actorId: null, ip: null, requestId: null };

interface AuditedRequest {
  user?: { id: string };
  ip?: string;
  id?: string;
}

/** The request's audit context: the caller (when authenticated), client address and request id. */
export const RequestAudit = createParamDecorator((_data: unknown, context: ExecutionContext): AuditContext => {
  const request = context.switchToHttp().getRequest<AuditedRequest>();
  return {
    actorId: request.user?.id ?? null,
    ip: typeof request.ip === 'string' ? request.ip : null,
    requestId: typeof request.id === 'string' ? request.id : null,
  };
});
