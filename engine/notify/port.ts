// The notification port (issue 13 item 4): an adapter delivers one stored notification to its
// channel or throws; the outbox (outbox.ts) owns retries, back-off and the bound. Adapters:
// webhook.ts (HTTP POST with an HMAC-SHA256 signature) and log.ts (a structured log line).
export interface Delivery {
  /** The outbox id: unique per delivery, sent as X-Lintel-Delivery. */
  id: number
  alertId: number
  channel: string
  /** The JSON text of the payload (payload.ts), sent byte for byte as signed. */
  payload: string
}

/** Where an alert's notifications go (its `notification` object); secrets stay server-side. */
export interface NotifyTarget { webhook?: { url: string; secret: string }; log?: boolean; email?: { to: string[] } }

export interface NotificationAdapter {
  /** Resolves once delivered; rejects (the outbox retries later) on any failure. */
  deliver(d: Delivery, target: NotifyTarget): Promise<void>
  close?(): Promise<void>
}

export interface NotifyLog {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}
