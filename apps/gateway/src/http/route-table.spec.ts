import { RouteTable } from './route-table.js';

describe('RouteTable', () => {
  const routes = new RouteTable();
  routes.add('GET', '/api/v1/projects');
  routes.add('POST', '/api/v1/projects');
  routes.add(['GET', 'HEAD'], '/api/v1/projects/:id');
  routes.add('PATCH', '/api/v1/projects/:id');
  routes.add(['GET', 'POST'], '/api/auth/*');

  it('lists the methods a concrete path takes', () => {
    expect(routes.allowedMethods('/api/v1/projects?limit=2')).toEqual(['GET', 'POST']);
    expect(routes.allowedMethods('/api/v1/projects/abc')).toEqual(['GET', 'PATCH']);
    expect(routes.allowedMethods('/api/auth/sign-in/email')).toEqual(['GET', 'POST']);
  });

  it('knows no methods for an unknown path', () => {
    expect(routes.allowedMethods('/api/v1/projects/abc/def')).toEqual([]);
    expect(routes.allowedMethods('/nope')).toEqual([]);
  });
});
