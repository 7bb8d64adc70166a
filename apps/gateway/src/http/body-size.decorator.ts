import { type BodySize, edgeRouteConfig } from '../auth/route-config.js';

/** A route whose body may be larger than the default limit (GatewayConfig names each size). */
export const LargeBody = (size: BodySize): MethodDecorator => edgeRouteConfig({ bodySize: size });
