// The console's browser tests (test/console/): Debian's Chromium (scripts/install-test-deps.sh)
// driven headless by playwright-core (Firefox: firefox.ts). Without Chromium a test skips
// locally with a message naming how to install it; in CI (CI=true) it fails instead, so the
// browser tests never silently stop running. Screenshots go to test-artifacts/console/ (in .gitignore; CI keeps
// the folder as an artifact).
import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { chromium, type Browser, type Page } from 'playwright-core'
import type { Login } from './platform.ts'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
export const ARTIFACTS = join(ROOT, 'test-artifacts', 'console')

/** Chromium's executable: LINTEL_CHROMIUM when set (only it), else where Debian (and others) put it. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env.LINTEL_CHROMIUM ? [env.LINTEL_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome-stable', '/usr/bin/google-chrome']
  return candidates.find((p) => existsSync(p))
}

/**
 * The browser of a test file, or undefined when there is none: then the file is skipped
 * (locally) or failed (CI=true) with the reason. Closed at the end of the file.
 */
export async function browserFor(t: Test): Promise<Browser | undefined> {
  const path = chromiumPath()
  if (path === undefined) return noBrowser(t, 'Chromium not found (/usr/bin/chromium or LINTEL_CHROMIUM): `npm run test:deps` installs Debian\'s chromium')
  const browser = await chromium.launch({ executablePath: path, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
  t.teardown(() => browser.close())
  return browser
}

/** A browser the file needs is missing: skipped locally with `why`, failed in CI (CI=true). */
export function noBrowser(t: Test, why: string): undefined {
  if (process.env.CI === 'true') t.fail(`${why}; CI must run the console's browser tests`)
  else t.plan(0, why)
  return undefined
}

/** What logging in needs of a page; a Playwright page is one, a Puppeteer page is adapted (firefox.ts). */
export interface LoginDriver {
  goto(url: string): Promise<unknown>
  fill(selector: string, value: string): Promise<unknown>
  click(selector: string): Promise<unknown>
  waitForFunction(fn: () => boolean): Promise<unknown>
}

/** Log in through the console's form at `base` and wait for the project list. */
export async function consoleLogin(page: LoginDriver, base: string, who: Login): Promise<void> {
  await page.goto(`${base}/#/login`)
  await page.fill('input[name=email]', who.email)
  await page.fill('input[name=password]', who.password)
  await page.click('button[type=submit]')
  await page.waitForFunction(() => location.hash === '#/' && document.querySelector('main h1')?.textContent === 'Projects')
}

export interface ConsolePage {
  page: Page
  /** Page errors (uncaught exceptions) seen so far: a test asserts there are none. */
  errors: string[]
  /** A screenshot into test-artifacts/console/<file>-<name>.png. */
  shot(name: string): Promise<void>
  /** Log in through the console's form and wait for the project list. */
  login(who: Login): Promise<void>
}

/** A fresh page (its own session storage) on the console at `base`. */
export async function consolePage(t: Test, browser: Browser, base: string, file: string): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } })
  t.teardown(() => context.close())
  const page = await context.newPage()
  page.setDefaultTimeout(30_000)
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  mkdirSync(ARTIFACTS, { recursive: true })
  return {
    page,
    errors,
    shot: async (name) => { await page.screenshot({ path: join(ARTIFACTS, `${file}-${name}.png`), fullPage: true }) },
    login: (who) => consoleLogin(page, base, who),
  }
}
