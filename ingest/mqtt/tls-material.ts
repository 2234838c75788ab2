// Certificate and key of the broker's TLS listeners: from configured files, or on the
// embedded default a self-signed pair generated once into <data>/tls and reused, so that
// `mosquitto_pub --cafile <data>/tls/cert.pem` can verify the broker.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generate } from 'selfsigned'

export interface TlsMaterial { cert: Buffer; key: Buffer; certPath: string; generated: boolean }

export async function loadTlsMaterial(opts: { dataDir: string; certFile?: string; keyFile?: string }): Promise<TlsMaterial> {
  if (opts.certFile && opts.keyFile) {
    return { cert: readFileSync(opts.certFile), key: readFileSync(opts.keyFile), certPath: opts.certFile, generated: false }
  }
  const dir = join(opts.dataDir, 'tls')
  const certPath = join(dir, 'cert.pem')
  const keyPath = join(dir, 'key.pem')
  if (existsSync(certPath) && existsSync(keyPath)) {
    return { cert: readFileSync(certPath), key: readFileSync(keyPath), certPath, generated: false }
  }
  mkdirSync(dir, { recursive: true })
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    notAfterDate: new Date(Date.now() + 10 * 365 * 86_400_000), keySize: 2048, algorithm: 'sha256',
    extensions: [
      // Self-signed and its own trust anchor: clients pass this file as their CA.
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }, { type: 7, ip: '::1' }] },
    ],
  })
  writeFileSync(keyPath, pems.private, { mode: 0o600 })
  writeFileSync(certPath, pems.cert)
  return { cert: Buffer.from(pems.cert), key: Buffer.from(pems.private), certPath, generated: true }
}
