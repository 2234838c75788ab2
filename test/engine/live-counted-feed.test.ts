// countedFeed (engine/live/counted-feed.ts): the feed underneath keeps a project while any
// user of the wrapper still watches it, and forgets it after the last unwatch.
import t from 'tap'
import { countedFeed } from '../../engine/live/counted-feed.ts'
import type { LiveFeed } from '../../engine/live/feed.ts'

t.test('the first watch and the last unwatch reach the feed', async (t) => {
  const calls: string[] = []
  const inner: LiveFeed = {
    observations: () => () => {}, alerts: () => () => {}, interrupted: () => () => {}, close: async () => {},
    watch: async (p) => { calls.push(`watch ${p}`) }, unwatch: (p) => { calls.push(`unwatch ${p}`) },
  }
  const feed = countedFeed(inner)
  await feed.watch(1)
  await feed.watch(1)
  await feed.watch(2)
  feed.unwatch(1)
  t.same(calls.filter((c) => c.startsWith('unwatch')), [], 'project 1 is still watched once')
  feed.unwatch(1)
  feed.unwatch(1)
  feed.unwatch(3)
  t.same(calls.filter((c) => c.startsWith('unwatch')), ['unwatch 1'], 'one unwatch after the last; extra ones do nothing')
  t.same(calls.filter((c) => c.startsWith('watch')).length, 3, 'every watch waits for the subscription (the feed ignores repeats)')
})
