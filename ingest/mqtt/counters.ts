// The broker's counters, kept per project as well as for the whole process (issue 9, item
// 9): GET /v2/system/metrics shows a company the sum over its own projects only; the
// operator tool shows the process totals. Events before authentication (unknown usernames,
// oversize CONNECTs) belong to no project and appear in the totals only.

export const COUNTERS = [
  'connections_refused', 'connections_throttled', 'connections_preauth_refused', 'connections_preauth_timeout', 'packets_oversize', 'publishes_refused', 'subscriptions_refused',
  'lines_stored', 'lines_dropped', 'lines_outside_grant', 'tag_changes_stored', 'tag_changes_over_limit',
  'meta_dropped', 'meta_outside_grant', 'controls_dropped', 'controls_outside_grant', 'controls_refused', 'controls_not_edge', 'store_failures',
] as const
export type CounterName = typeof COUNTERS[number]
export type CounterSet = Record<CounterName, number>

const zero = (): CounterSet => Object.fromEntries(COUNTERS.map((c) => [c, 0])) as CounterSet

export class BrokerCounters {
  readonly total = zero()
  private readonly projects = new Map<number, CounterSet>()

  add(name: CounterName, projectId?: number, n = 1): void {
    if (n === 0) return
    this.total[name] += n
    if (projectId === undefined) return
    let p = this.projects.get(projectId)
    if (!p) this.projects.set(projectId, p = zero())
    p[name] += n
  }

  /** The sum over the given projects. */
  of(projectIds: Iterable<number>): CounterSet {
    const sum = zero()
    for (const id of projectIds) {
      const p = this.projects.get(id)
      if (p) for (const c of COUNTERS) sum[c] += p[c]
    }
    return sum
  }
}
