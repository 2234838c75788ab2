// Retrying a refused broker login (issue 32): mqtt.js stops reconnecting for good after a
// CONNACK that refuses the login (bad password, account not yet created or expired) unless
// `reconnectOnConnackError` is set, and then retries at the fixed reconnectPeriod. An agent
// installed in a building must come up by itself once the account is fixed, without hammering
// the broker meanwhile: after each refusal the next attempt waits twice as long (from the
// reconnect period up to `maxMs`), each refusal is logged with the wait, and a successful
// connection resets the wait. Unreachable brokers keep the plain reconnect period.
import type { MqttClient } from 'mqtt'

export const REFUSED_LOGIN_MAX_MS = 60_000

/** Options to merge into the client's: keep reconnecting after a refused CONNACK. */
export const retryRefusedLogins = { reconnectOnConnackError: true } as const

/** Installs the back-off on `client` (created with `retryRefusedLogins`). */
export function backOffRefusedLogins(client: MqttClient, log: (msg: string) => void, maxMs = REFUSED_LOGIN_MAX_MS): void {
  const base = client.options.reconnectPeriod ?? 1000
  if (base <= 0) return
  let wait = base
  client.on('error', (err) => {
    const code = (err as { code?: unknown }).code
    // A CONNACK refusal carries its reason code (MQTT 3.1.1: 1-5, MQTT 5: >= 0x80); socket errors carry a string code.
    if (typeof code !== 'number' || !err.message.startsWith('Connection refused')) return
    // mqtt.js arms the next attempt right after this event, with the period read now.
    client.options.reconnectPeriod = wait
    log(`edge: the broker refused the login (${err.message}); next attempt in ${wait < 1000 ? `${wait} ms` : `${Math.round(wait / 1000)} s`}`)
    wait = Math.min(maxMs, wait * 2)
  })
  client.on('connect', () => { wait = base; client.options.reconnectPeriod = base })
}
