// The one module shape of a runtime (issue 30 item 5; DESIGN.md "engine/": start(deps) ->
// { stop }). A runtime's module exports a start function that takes what it needs, starts
// (resumes what the catalog says runs, arms its timers) and resolves with a Running whose
// stop() ends all of it; the composition root (server/runtimes.ts) lists them per role and
// stops them in reverse order of start. Handles a caller needs (the API calls a runtime) ride
// on the same object.

export interface Running {
  /** Ends everything the start began: timers, subscriptions, work under way. Called once. */
  stop(): Promise<void>
}
