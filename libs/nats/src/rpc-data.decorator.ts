import { createParamDecorator, type ExecutionContext } from '@nestjs/common';

/**
 * Picks one part of a `{principal, data}` message by dotted path, e.g. `@RpcData('data.body')`.
 * The global validation pipe checks it against the parameter's DTO class.
 */
export const RpcData = createParamDecorator((path: string, context: ExecutionContext): unknown => {
  let value: unknown = context.switchToRpc().getData();
  for (const key of path.split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
});

/** The caller's principal, which the gateway resolved and every query must be scoped by. */
export const RpcPrincipal = (): ParameterDecorator => RpcData('principal');
