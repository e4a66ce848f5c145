// The inspector's static files (HTML, ES modules, CSS in the package's web/inspector folder), served without auth.
import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env, Hono } from 'hono';

/** The folder holding the inspector's files: `web/inspector` at the package root (from src/server or dist/server). */
export const INSPECTOR_DIRECTORY = fileURLToPath(new URL('../../web/inspector/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** A static file ready to send. */
interface StaticFile {
  body: string;
  type: string;
}

/** Every file of the folder (one level of subfolders), keyed by its path under the folder with `/` separators. */
function loadFiles(directory: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const type = CONTENT_TYPES[extname(entry.name)];
    if (type === undefined) continue;
    const path = join(entry.parentPath ?? (entry as { path?: string }).path ?? directory, entry.name);
    const relative = path.slice(directory.length).split(/[\\/]/u).filter((part) => part !== '').join('/');
    files.set(relative, { body: readFileSync(path, 'utf8'), type });
  }
  return files;
}

/**
 * Serves the inspector at `/inspector/` (and redirects `/` there). The files are read once, at start, from a fixed
 * list: no path from a request ever reaches the file system. They need no token; the page asks for one and sends
 * it to the API, whose answers are the only data it shows.
 *
 * @example
 * ```ts
 * const app = new Hono();
 * serveInspector(app); // GET /inspector/ -> index.html, GET /inspector/app.js -> text/javascript
 * ```
 */
export function serveInspector<E extends Env>(app: Hono<E>, directory = INSPECTOR_DIRECTORY): void {
  const files = loadFiles(directory);
  const send = (name: string) => {
    const file = files.get(name);
    if (file === undefined) return null;
    return new Response(file.body, {
      headers: {
        'content-type': file.type,
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        ...(file.type.startsWith('text/html') ? { 'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'" } : {}),
      },
    });
  };
  app.get('/', (c) => c.redirect('/inspector/'));
  app.get('/inspector', (c) => c.redirect('/inspector/'));
  app.get('/inspector/*', async (c, next) => {
    const name = c.req.path.slice('/inspector/'.length);
    const response = send(name === '' ? 'index.html' : name);
    if (response === null) return next();
    return response;
  });
}
