import type { Principal, RpcSubject } from '#contracts';

type Handler<TRequest, TReply, TCaller> = (request: TRequest, caller: TCaller) => TReply | Promise<TReply>;

/** Where `@Handles` records a method's catalog entry, for the RPC server to find at start-up. */
export const HANDLES_METADATA = 'flowmesh:handles';

/**
 * Serves a catalog subject. The method receives the request validated against the subject's class
 * and the caller's principal (for organization-scoped subjects), and must answer the subject's reply
 * type: a handler cannot drift from its catalog entry without failing to compile.
 */
export function Handles<TRequest extends object, TReply, TCaller extends Principal | null>(
  entry: RpcSubject<TRequest, TReply, TCaller>,
) {
  return (
    _target: object,
    _key: string | symbol,
    // Only `value` is named: a full TypedPropertyDescriptor would be invariant in the method's type.
    descriptor: { value?: Handler<TRequest, TReply, TCaller> },
  ): void => {
    if (!descriptor.value) throw new Error(`@Handles(${entry.bare}) must decorate a method`);
    Reflect.defineMetadata(HANDLES_METADATA, entry, descriptor.value);
  };
}
