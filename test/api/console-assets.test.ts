// The console is served by the platform itself (issue 33 item 3): `/` and /console/* from
// memory, compressed, revalidated by ETag, under a policy that lets the page talk only to its
// own origin; every module the console imports is there; nothing outside the table is
// reachable; and the whole console weighs less than the 300 KB a page load may transfer.
import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { platform } from '../helpers/platform.ts'
import { CONSOLE_DIR, loadConsoleAssets } from '../../api/console-assets.ts'

const p = await platform(t)
const get = (url: string, headers: Record<string, string> = {}) => p.app.inject({ method: 'GET', url, headers })

t.test('/ is the console page, under a policy naming only its own origin', async (t) => {
  const res = await get('/', { host: '127.0.0.1:8080' })
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/html/)
  t.match(res.body, /<script type="module" src="\/console\/app\.js">/, 'it loads the shell')
  t.match(res.body, /\/console\/vendor\/uPlot\.iife\.min\.js/, 'and uPlot from the platform, not a CDN')
  t.notMatch(res.body, /https?:\/\//, 'no address of another origin in the page')
  const csp = String(res.headers['content-security-policy'])
  t.match(csp, /default-src 'self'/)
  t.match(csp, /script-src 'self';/, 'scripts from this origin only')
  t.match(csp, /connect-src 'self' ws:\/\/127\.0\.0\.1:8080 wss:\/\/127\.0\.0\.1:8080;/, 'the API and its WebSocket on this origin only')
  t.equal(res.headers['x-content-type-options'], 'nosniff')
  const odd = await get('/', { host: 'evil.example;script-src *' })
  t.notMatch(String(odd.headers['content-security-policy']), /evil/, 'a Host header that is not a plain host is not copied into the policy')
})

t.test('every module the console imports, and every page, is served', async (t) => {
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((d) => d.isDirectory() ? files(join(dir, d.name)) : [join(dir, d.name)])
  const scripts = files(CONSOLE_DIR).filter((f) => f.endsWith('.js'))
  const wanted = new Set<string>()
  for (const f of scripts) {
    const text = readFileSync(f, 'utf8')
    const self = `http://x/console/${f.slice(CONSOLE_DIR.length + 1)}`
    for (const m of text.matchAll(/from '(\.[^']+)'/g)) wanted.add(new URL(m[1], self).pathname)
  }
  // Pages are imported by name (app.js: import(`./views/${name}.js`)).
  const router = readFileSync(join(CONSOLE_DIR, 'lib', 'router.js'), 'utf8')
  const pages = router.slice(router.indexOf('export const PAGES'), router.indexOf(']\n', router.indexOf('export const PAGES')))
  for (const m of pages.matchAll(/\['(\w+)', '[^']+'\]/g)) wanted.add(`/console/views/${m[1]}.js`)
  wanted.add('/console/views/projects.js')
  t.ok(wanted.size > 15, `${wanted.size} modules`)
  for (const url of wanted) {
    const res = await get(url)
    t.equal(res.statusCode, 200, url)
    t.match(res.headers['content-type'], /^text\/javascript/, `${url} is served as JavaScript (modules need it)`)
  }
})

t.test('compressed when the browser accepts it, revalidated by ETag', async (t) => {
  const plain = await get('/console/vendor/uPlot.iife.min.js')
  const zipped = await get('/console/vendor/uPlot.iife.min.js', { 'accept-encoding': 'gzip, deflate, br' })
  t.equal(zipped.headers['content-encoding'], 'gzip')
  t.ok(zipped.rawPayload.length < plain.rawPayload.length / 2, `gzip ${zipped.rawPayload.length} of ${plain.rawPayload.length} bytes`)
  t.same(gunzipSync(zipped.rawPayload), plain.rawPayload, 'the same file')
  t.equal(plain.headers['cache-control'], 'no-cache', 'revalidated on every load: a new release is seen at once')
  const again = await get('/console/vendor/uPlot.iife.min.js', { 'if-none-match': String(plain.headers.etag) })
  t.equal(again.statusCode, 304)
  t.equal(again.rawPayload.length, 0)
})

t.test('nothing outside the table is reachable', async (t) => {
  for (const url of ['/console/nope.js', '/console/../package.json', '/console/%2e%2e/package.json', '/console/..%2fapi%2fapp.ts', '/console/tsconfig.json', '/console/lib/../../api/app.ts', '/package.json']) {
    const res = await get(url)
    t.equal(res.statusCode, 404, url)
    t.notMatch(res.body, /"name": "lintel"|buildApp/, `${url}: no file of the repository`)
  }
  const missing = await get('/console/nope.js')
  t.same(JSON.parse(missing.body), { success: false, error: 'The console has no file /console/nope.js', operation: '' }, 'the failure envelope')
  t.equal((await get('/v2/health')).statusCode, 200, 'the API stays under /v2')
  t.equal((await get('/v2/nothing-here')).statusCode, 404)
})

t.test('the whole console transfers under 300 KB', async (t) => {
  const assets = loadConsoleAssets()
  let total = 0
  for (const [url, a] of assets) if (url !== '/') total += a.gzip.length
  t.ok(total < 300 * 1024, `all files of the console, compressed: ${total} bytes`)
  t.comment(`console: ${assets.size - 1} files, ${total} bytes compressed, ${[...assets].filter(([u]) => u !== '/').reduce((n, [, a]) => n + a.body.length, 0)} bytes plain`)
})
