import 'reflect-metadata';

import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants.js';

import { Public } from './public.decorator.js';
import { SessionOnly } from './session-only.decorator.js';
import { BodyLimit } from '../http/body-size.decorator.js';

const configOf = (method: unknown) => Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, method as object);

describe('edge route config', () => {
  it("writes a class's setting on each of its methods, where a method's own wins", () => {
    @SessionOnly()
    class Routes {
      list() {
        return 'list';
      }

      @Public('hooks')
      receive() {
        return 'receive';
      }

      @BodyLimit('query')
      query() {
        return 'query';
      }
    }
    expect(configOf(Routes.prototype.list)).toEqual({ access: 'session' });
    expect(configOf(Routes.prototype.receive)).toEqual({ access: 'public', addressLimit: 'hooks' });
    expect(configOf(Routes.prototype.query)).toEqual({ access: 'session', bodySize: 'query' });
  });
});
