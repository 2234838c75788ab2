// Which addresses alert webhooks may reach (engine/notify/address-policy.ts): internal ones are
// refused unless LINTEL_WEBHOOK_ALLOW names them.
import t from 'tap'
import { parseWebhookAllow, WebhookAddressPolicy } from '../../../engine/notify/address-policy.ts'

t.test('internal addresses are refused, public ones pass', async (t) => {
  const p = new WebhookAddressPolicy()
  for (const a of ['127.0.0.1', '127.255.0.9', '10.0.0.1', '172.16.5.5', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fd00::1', 'fe80::1', 'ff02::1', '::ffff:10.0.0.1']) {
    t.match(p.refusal('h', a), /internal address/, a)
  }
  for (const a of ['8.8.8.8', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) t.equal(p.refusal('h', a), undefined, a)
})

t.test('IPv6 ranges that embed an IPv4 address are refused whole (issue 29)', async (t) => {
  const p = new WebhookAddressPolicy()
  for (const a of ['::7f00:1', '::127.0.0.1', '::a00:1', '::808:808', // IPv4-compatible ::/96
    '64:ff9b::7f00:1', '64:ff9b::8.8.8.8', '64:ff9b::a9fe:a9fe', // NAT64 64:ff9b::/96
    '64:ff9b:1::1', '64:ff9b:1:ffff::a00:1', // local-use NAT64 64:ff9b:1::/48
    '2002:7f00:1::1', '2002:a9fe:a9fe::', '2002:808:808::1']) { // 6to4 2002::/16
    t.match(p.refusal('h', a), /internal address .*embeds an IPv4 address/, a)
  }
  // Neighbours of those ranges stay public.
  for (const a of ['64:ff9b:0:0:1::1', '64:ff9b:2::1', '2003::1', '2001:db9::1', '::1:0:0:1']) t.equal(p.refusal('h', a), undefined, a)
  t.equal(new WebhookAddressPolicy(['64:ff9b::/96']).refusal('h', '64:ff9b::8.8.8.8'), undefined, 'the operator can open one')
})

t.test('the operator allows host names, addresses and ranges', async (t) => {
  const p = new WebhookAddressPolicy(['hooks.internal', '10.0.0.5', '192.168.0.0/16', 'fd00::/8'])
  t.equal(p.refusal('HOOKS.internal', '10.9.9.9'), undefined, 'by host name, any address')
  t.equal(p.refusal('x', '10.0.0.5'), undefined)
  t.match(p.refusal('x', '10.0.0.6'), /internal/)
  t.equal(p.refusal('x', '192.168.77.1'), undefined)
  t.equal(p.refusal('x', 'fd12::1'), undefined)
  t.match(p.refusal('x', '127.0.0.1'), /internal/)
})

t.test('LINTEL_WEBHOOK_ALLOW is parsed or refused with the entry named', async (t) => {
  t.same(parseWebhookAllow(' 127.0.0.1, hooks.local ,10.0.0.0/8,,::1'), ['127.0.0.1', 'hooks.local', '10.0.0.0/8', '::1'])
  t.equal(parseWebhookAllow('10.0.0.0/33'), "LINTEL_WEBHOOK_ALLOW: '10.0.0.0/33' is not a host name, address or CIDR range")
  t.equal(parseWebhookAllow('host/8'), "LINTEL_WEBHOOK_ALLOW: 'host/8' is not a host name, address or CIDR range")
  t.equal(parseWebhookAllow('a b'), "LINTEL_WEBHOOK_ALLOW: 'a b' is not a host name, address or CIDR range")
})
