/**
 * The gateway's routes as patterns, so an unknown method on a known path can answer 405 with the
 * methods it does take, rather than a bare 404.
 */
export class RouteTable {
  private readonly routes: Array<{ method: string; pattern: RegExp }> = [];

  add(method: string | string[], url: string): void {
    const pattern = new RegExp(
      `^${url
        .split('/')
        .map((segment) =>
          segment.startsWith(':')
            ? '[^/]+'
            : segment === '*'
              ? '.*'
              : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        )
        .join('/')}/?$`,
    );
    for (const one of Array.isArray(method) ? method : [method]) {
      if (one !== 'HEAD' && one !== 'OPTIONS') this.routes.push({ method: one, pattern });
    }
  }

  allowedMethods(path: string): string[] {
    const pathname = path.split('?')[0] ?? path;
    return [
      ...new Set(this.routes.filter((route) => route.pattern.test(pathname)).map((route) => route.method)),
    ];
  }
}
