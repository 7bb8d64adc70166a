import { SetMetadata } from '@nestjs/common';

export const IS_SESSION_ONLY = 'isSessionOnly';

/**
 * A browser route for signed-in members (connecting apps, agent chat): the contract keeps these out
 * of the API, so an organization key is refused with forbidden.
 */
export const SessionOnly = (): MethodDecorator & ClassDecorator => SetMetadata(IS_SESSION_ONLY, true);
