import { type BodySize, edgeRouteConfig } from '../auth/route-config.js';

/** A route whose body limit is not the default one (GatewayConfig names each size). */
export const BodyLimit = (size: BodySize): MethodDecorator & ClassDecorator =>
  edgeRouteConfig({ bodySize: size });
