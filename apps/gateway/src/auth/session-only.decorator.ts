import { edgeRouteConfig } from './route-config.js';

/**
 * A browser route for signed-in members (connecting apps, agent chat): the contract keeps these out
 * of the API, so an organization key is refused with forbidden.
 */
export const SessionOnly = (): MethodDecorator & ClassDecorator => edgeRouteConfig({ access: 'session' });
