// Which addresses a webhook may reach (issue 13: webhook URLs must not turn the platform into a
// proxy into its own network). Anyone allowed to create an alert names the URL, so by default
// the webhook adapter refuses loopback, private, link-local (cloud metadata at 169.254.169.254),
// carrier-grade NAT, unspecified and multicast addresses and the IPv6 ranges that embed IPv4 ones, checked on the address actually
// connected to (after DNS, so a name that resolves to 127.0.0.1 is refused too). The operator
// opens exceptions with LINTEL_WEBHOOK_ALLOW: host names, addresses or CIDR ranges.
import { BlockList, isIP } from 'node:net'

const INTERNAL_V4: [string, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
]
// Besides loopback, unique-local, link-local and multicast: the ranges that carry an IPv4
// address inside an IPv6 one (issue 29), whole, because a gateway on the path turns them back
// into that IPv4 address, which may be internal: IPv4-compatible `::/96` (it holds `::` and
// `::1` too), NAT64 `64:ff9b::/96` (RFC 6052) and `64:ff9b:1::/48` (RFC 8215), and 6to4
// `2002::/16` (RFC 3056). The operator opens one with LINTEL_WEBHOOK_ALLOW if needed.
const INTERNAL_V6: [string, number][] = [
  ['::', 96], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
  ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['2002::', 16],
]

const internal = new BlockList()
for (const [net, prefix] of INTERNAL_V4) internal.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of INTERNAL_V6) internal.addSubnet(net, prefix, 'ipv6')

export class WebhookAddressPolicy {
  private readonly hosts = new Set<string>()
  private readonly allowed = new BlockList()

  /** `allow`: host names, IP addresses or CIDR ranges that may be reached though internal. */
  constructor(allow: readonly string[] = []) {
    for (const entry of allow) {
      const [addr, prefix] = entry.split('/')
      const family = isIP(addr)
      if (family === 0) this.hosts.add(entry.toLowerCase())
      else if (prefix === undefined) this.allowed.addAddress(addr, family === 4 ? 'ipv4' : 'ipv6')
      else this.allowed.addSubnet(addr, Number(prefix), family === 4 ? 'ipv4' : 'ipv6')
    }
  }

  /** Why `address` (reached for `host`) is refused, or undefined when it may be connected to. */
  refusal(host: string, address: string): string | undefined {
    if (this.hosts.has(host.toLowerCase())) return undefined
    const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1]
    const ip = v4mapped ?? address
    const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4'
    if (!internal.check(ip, type) || this.allowed.check(ip, type)) return undefined
    return `webhook host ${host} is the internal address ${address} (loopback, private, link-local, reserved, or an IPv6 range that embeds an IPv4 address); ` +
      'the operator can allow it with LINTEL_WEBHOOK_ALLOW'
  }
}

/** Parses LINTEL_WEBHOOK_ALLOW: a comma-separated list; returns the entries or the problem. */
export function parseWebhookAllow(text: string): string[] | string {
  const entries = text.split(',').map((s) => s.trim()).filter((s) => s !== '')
  for (const e of entries) {
    const [addr, prefix, extra] = e.split('/')
    const family = isIP(addr)
    if (extra !== undefined || (prefix !== undefined && (family === 0 || !/^\d+$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)))) {
      return `LINTEL_WEBHOOK_ALLOW: '${e}' is not a host name, address or CIDR range`
    }
    if (family === 0 && !/^[A-Za-z0-9.-]{1,253}$/.test(addr)) return `LINTEL_WEBHOOK_ALLOW: '${e}' is not a host name, address or CIDR range`
  }
  return entries
}
