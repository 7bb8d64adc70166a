import { type AddressLimit, edgeRouteConfig } from './route-config.js';

/**
 * A route that needs no credential and is not limited per key. `addressLimit` limits it per client
 * address instead: every public route that does work on a stranger's behalf needs one.
 */
export const Public = (addressLimit?: AddressLimit): MethodDecorator & ClassDecorator =>
  edgeRouteConfig({ access: 'public', ...(addressLimit ? { addressLimit } : {}) });
