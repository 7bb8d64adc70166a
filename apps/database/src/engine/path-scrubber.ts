import { realpathSync } from 'node:fs';

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Takes server paths out of what the engine says: a database's own directory (which names its
 * organization) goes, the data directory reads `<data>` and the home directory `~`. Refusing the
 * catalog functions that show paths (statement-policy.ts) is the first line; this covers the engine's
 * messages (a lock, an I/O or spill error, an extension directory) and rows that carry a path anyway.
 */
export class PathScrubber {
  private readonly roots: string[];
  private readonly databaseDirectory: RegExp;
  private readonly root: RegExp;
  private readonly home: RegExp | null;

  constructor(root: string, home: string) {
    const real = (() => {
      try {
        return realpathSync(root);
      } catch {
        return root;
      }
    })();
    this.roots = [...new Set([root, real])];
    const anyRoot = this.roots.map(escaped).join('|');
    this.databaseDirectory = new RegExp(`(?:${anyRoot})/[^/\\s'"]+/`, 'g');
    this.root = new RegExp(anyRoot, 'g');
    // A home of `/` would match every path separator.
    this.home = home.length > 1 ? new RegExp(`${escaped(home)}(?=/|$|[\\s'"])`, 'g') : null;
  }

  /** An engine message: every server path goes. */
  message(text: string): string {
    const scrubbed = this.rows(text);
    return this.home ? scrubbed.replace(this.home, '~') : scrubbed;
  }

  /**
   * Result rows: only the data directory goes (data may well hold other paths, the home directory's
   * included, and is left alone).
   */
  rows(text: string): string {
    if (!this.roots.some((root) => text.includes(root))) return text;
    return text.replace(this.databaseDirectory, '').replace(this.root, '<data>');
  }
}
