// One live feed shared by several users of it in an API process (the live WebSocket hub and
// the Haystack watches, issue 35): each asks for the projects it needs with watch/unwatch, and
// the feed underneath (scaled: a Redis channel per project) must stay subscribed while any of
// them still needs a project. The wrapper counts per project and passes only the first watch
// and the last unwatch on; everything else goes to the feed as it is.
import type { LiveFeed } from './feed.ts'

export function countedFeed(feed: LiveFeed): LiveFeed {
  const counts = new Map<number, number>()
  return {
    ...feed,
    observations: (fn) => feed.observations(fn),
    alerts: (fn) => feed.alerts(fn),
    interrupted: (fn) => feed.interrupted(fn),
    close: () => feed.close(),
    watch: async (projectId) => {
      const n = counts.get(projectId) ?? 0
      counts.set(projectId, n + 1)
      // Every caller waits for the subscription: a second one must not go on before the first is confirmed.
      await feed.watch(projectId)
    },
    unwatch: (projectId) => {
      const n = counts.get(projectId)
      if (n === undefined) return
      if (n > 1) { counts.set(projectId, n - 1); return }
      counts.delete(projectId)
      feed.unwatch(projectId)
    },
  }
}
