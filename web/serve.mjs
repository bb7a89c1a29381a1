// Serves a built page (dist/) on loopback: static files only, no server-side code. Used by
// scripts/web and by the tests.
//
//   node serve.mjs [--port N] [--dir DIR]     prints `web: http://127.0.0.1:PORT/`

import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
  '.png': 'image/png',
  '.json': 'application/json',
};

/** Serves `dir` on 127.0.0.1:`port` (0: any free port); resolves to its URL and server. */
export function serve(dir, port = 0) {
  const root = resolve(dir);
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const file = normalize(join(root, path.endsWith('/') ? `${path}index.html` : path));
    if (file !== root && !file.startsWith(root + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      if (!(await stat(file)).isFile()) {
        throw new Error('not a file');
      }
      const body = await readFile(file);
      response.writeHead(200, {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
      });
      response.end(body);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    }
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => {
      ok({ url: `http://127.0.0.1:${server.address().port}/`, server });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const here = dirname(fileURLToPath(import.meta.url));
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '8042' }, dir: { type: 'string', default: join(here, 'dist') } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`web: --port ${values.port} is not a port number (0-65535)`);
    process.exit(2);
  }
  serve(values.dir, port).then(
    ({ url }) => console.log(`web: ${url}`),
    (error) => {
      console.error(`web: cannot serve on 127.0.0.1:${port}: ${error.message}`);
      process.exit(1);
    },
  );
}
