import { type ArgumentsHost, Catch, type ExceptionFilter, ServiceUnavailableException } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/**
 * Terminus reports a failed check by throwing a 503 that carries the check's result, which is what a
 * probe and an operator should get. The app-wide filters are for other answers: the gateway's would
 * turn it into the contract's error shape, and a service's (the RPC one, global to the whole app)
 * would log every failed probe as an unexpected handler error.
 */
@Catch(ServiceUnavailableException)
export class HealthCheckFilter implements ExceptionFilter {
  catch(exception: ServiceUnavailableException, host: ArgumentsHost): void {
    void host.switchToHttp().getResponse<FastifyReply>().status(503).send(exception.getResponse());
  }
}
