import type { Principal, RpcSubject } from '#contracts';
import { MessagePattern } from '@nestjs/microservices';

import { readMessage } from './message-validation.js';

type Handler<TRequest, TReply, TCaller> = (request: TRequest, caller: TCaller) => TReply | Promise<TReply>;

/**
 * Serves a catalog subject. The method receives the request validated against the subject's class
 * and the caller's principal (for organization-scoped subjects), and must answer the subject's reply
 * type: a handler cannot drift from its catalog entry without failing to compile.
 */
export function Handles<TRequest extends object, TReply, TCaller extends Principal | null>(
  entry: RpcSubject<TRequest, TReply, TCaller>,
) {
  return (
    target: object,
    key: string | symbol,
    // Only `value` is named: a full TypedPropertyDescriptor would be invariant in the method's type.
    descriptor: { value?: Handler<TRequest, TReply, TCaller> },
  ): void => {
    const handler = descriptor.value;
    if (!handler) throw new Error(`@Handles(${entry.bare}) must decorate a method`);
    // Nest passes the raw message when a handler declares no parameter decorators.
    descriptor.value = function (this: unknown, message: unknown) {
      const { request, caller } = readMessage(entry, message);
      return handler.call(this, request, caller);
    } as Handler<TRequest, TReply, TCaller>;
    MessagePattern(entry.name)(target, key, descriptor as PropertyDescriptor);
  };
}
