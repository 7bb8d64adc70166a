import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';

/** Who may call a route: anyone, any credential (the default), or signed-in members only. */
export type RouteAccess = 'public' | 'credential' | 'session';

/** A public route limited per client address, with the budget of that name (GatewayConfig). */
export type AddressLimit = 'auth' | 'hooks';

/** A route whose body limit is not the default, with the limit of that name. */
export type BodySize = 'query' | 'diagram' | 'hook';

/**
 * What the gateway's edge must know of a route before it reads the request's body: the route's
 * Fastify config, which the request carries from the first hook on (`request.routeOptions.config`),
 * where Nest's own metadata is only reachable once the body has been parsed.
 */
export interface EdgeRouteConfig {
  access?: RouteAccess;
  addressLimit?: AddressLimit;
  bodySize?: BodySize;
  /** The reference page (Swagger UI), whose security headers allow its inline styles. */
  referencePage?: boolean;
}

type Config = Partial<EdgeRouteConfig>;

function mergeInto(target: object, patch: Config, methodWins: boolean): void {
  const existing = (Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, target) ?? {}) as Config;
  const merged = methodWins ? { ...patch, ...existing } : { ...existing, ...patch };
  Reflect.defineMetadata(FASTIFY_ROUTE_CONFIG_METADATA, merged, target);
}

/**
 * Sets part of a route's edge config. Nest hands Fastify the config of a handler method only, so on
 * a controller class the part is written on each of its methods, where a method's own setting wins.
 */
export function edgeRouteConfig(patch: Config): MethodDecorator & ClassDecorator {
  return (target: object, _key?: string | symbol, descriptor?: PropertyDescriptor) => {
    if (descriptor) {
      mergeInto(descriptor.value as object, patch, false);
      return;
    }
    const prototype = (target as { prototype: Record<string, unknown> }).prototype;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const method = prototype[name];
      if (name !== 'constructor' && typeof method === 'function') mergeInto(method, patch, true);
    }
  };
}

/** The edge config of a route as Fastify passes it, whatever else its config holds. */
export function edgeConfigOf(config: unknown): EdgeRouteConfig {
  return (config ?? {}) as EdgeRouteConfig;
}
