// Firefox for the console's browser tests: Debian's firefox-esr (scripts/install-test-deps.sh)
// driven headless by puppeteer-core over WebDriver BiDi (playwright-core's Firefox needs its
// own patched build; Debian's refuses its emulation commands). Missing Firefox skips locally
// and fails in CI, as Chromium does (browser.ts); screenshots go beside Chromium's.
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Test } from 'tap'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { ARTIFACTS, consoleLogin, noBrowser } from './browser.ts'
import type { Login } from './platform.ts'

/** Firefox's executable: LINTEL_FIREFOX when set (only it), else where Debian (and others) put it. */
export function firefoxPath(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env.LINTEL_FIREFOX ? [env.LINTEL_FIREFOX] : ['/usr/bin/firefox-esr', '/usr/bin/firefox']
  return candidates.find((p) => existsSync(p))
}

/** The test file's Firefox, or undefined (skipped locally, failed in CI); closed at the end of the file. */
export async function firefoxFor(t: Test): Promise<Browser | undefined> {
  const path = firefoxPath()
  if (path === undefined) return noBrowser(t, 'Firefox not found (/usr/bin/firefox-esr or LINTEL_FIREFOX): `npm run test:deps` installs Debian\'s firefox-esr')
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: path, headless: true })
  t.teardown(() => browser.close())
  return browser
}

export interface FirefoxPage {
  page: Page
  /** Uncaught errors in the page so far: a test asserts there are none. */
  errors: string[]
  /** A screenshot into test-artifacts/console/<file>-<name>.png. */
  shot(name: string): Promise<void>
  /** Log in through the console's form and wait for the project list. */
  login(who: Login): Promise<void>
}

/** A fresh page in its own browser context (its own session storage) on the console at `base`. */
export async function firefoxPage(t: Test, browser: Browser, base: string, file: string): Promise<FirefoxPage> {
  const context = await browser.createBrowserContext()
  t.teardown(() => context.close())
  const page = await context.newPage()
  await page.setViewport({ width: 1200, height: 800 })
  page.setDefaultTimeout(30_000)
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e instanceof Error ? e.message : String(e)))
  mkdirSync(ARTIFACTS, { recursive: true })
  const driver = {
    goto: (url: string) => page.goto(url),
    fill: (selector: string, value: string) => page.locator(selector).fill(value),
    click: (selector: string) => page.click(selector),
    waitForFunction: (fn: () => boolean) => page.waitForFunction(fn),
  }
  return {
    page,
    errors,
    shot: async (name) => { await page.screenshot({ path: join(ARTIFACTS, `${file}-${name}.png`), fullPage: true }) },
    login: (who) => consoleLogin(driver, base, who),
  }
}
