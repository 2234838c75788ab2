// The web console's files (console/ and uPlot's dist files), read once per process (on the
// first request for one) and kept in memory with their gzip form and an ETag: the console is a few dozen KB of
// static files, so no static-file server or CDN is needed (issue 33 item 3). Only the files
// found here are served: a URL names an entry of this table, never a path on disk, so no
// request can reach a file outside it.
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, extname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

export interface Asset {
  type: string
  body: Buffer
  gzip: Buffer
  etag: string
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
}

/** The console's folder in the repository (beside api/). */
export const CONSOLE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'console')

function asset(path: string): Asset {
  const body = readFileSync(path)
  return {
    type: TYPES[extname(path)] ?? 'application/octet-stream',
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  }
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : [path]
  })
}

/**
 * URL path → asset: `/` is index.html, every servable file of console/ is `/console/<path>`,
 * and uPlot's dist files (the installed package, copied into the table here rather than
 * fetched from a CDN) are `/console/vendor/<name>`.
 */
export function loadConsoleAssets(dir: string = CONSOLE_DIR): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  for (const path of walk(dir)) {
    if (!(extname(path) in TYPES)) continue // tsconfig.json, type declarations: not for the browser
    if (path.endsWith('.d.ts')) continue
    assets.set(`/console/${relative(dir, path).split('\\').join('/')}`, asset(path))
  }
  const index = assets.get('/console/index.html')
  if (index) assets.set('/', index)
  const uplot = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'))
  for (const name of ['uPlot.iife.min.js', 'uPlot.min.css']) assets.set(`/console/vendor/${name}`, asset(join(uplot, name)))
  return assets
}

const loaded = new Map<string, Map<string, Asset>>()

/** The assets of a folder, loaded once per process. */
export function consoleAssets(dir: string = CONSOLE_DIR): Map<string, Asset> {
  let assets = loaded.get(dir)
  if (!assets) loaded.set(dir, assets = loadConsoleAssets(dir))
  return assets
}

/**
 * What the console may load and talk to: its own origin only (scripts, styles, the API and
 * the WebSocket). uPlot sets element styles from script, hence 'unsafe-inline' for styles.
 */
export const CONSOLE_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The files are revalidated on every load (ETag): a new release is seen at once.
  'cache-control': 'no-cache',
}
