import { requestContext } from '#common';
import { REQUEST_ID_HEADER } from '#contracts';
import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import type { NatsContext } from '@nestjs/microservices';
import { randomUUID } from 'node:crypto';
import { map, Observable } from 'rxjs';

/**
 * Wraps every handler's result as `{ok: true, data}` and runs the handler inside the request id that
 * came in the NATS headers, so its log lines carry the id the gateway gave the HTTP request.
 */
@Injectable()
export class RpcEnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    // Global to the whole app, so it also sees the service's HTTP health routes: those answer as they are.
    if (context.getType() !== 'rpc') return next.handle();
    const nats = context.switchToRpc().getContext<NatsContext>();
    const requestId = nats.getHeaders()?.get(REQUEST_ID_HEADER) || randomUUID();
    return new Observable((subscriber) =>
      requestContext.run({ requestId }, () =>
        next
          .handle()
          .pipe(map((data: unknown) => ({ ok: true, data: data ?? null })))
          .subscribe(subscriber),
      ),
    );
  }
}
