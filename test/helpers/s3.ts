// The S3-compatible server of the tests (scripts/services/s3proxy.sh env prints these).
export const s3Env = {
  endpoint: process.env.LINTEL_S3_ENDPOINT ?? 'http://127.0.0.1:18333',
  bucket: process.env.LINTEL_S3_BUCKET ?? 'lintel',
  accessKeyId: process.env.LINTEL_S3_ACCESS_KEY ?? 'lintel',
  secretAccessKey: process.env.LINTEL_S3_SECRET_KEY ?? 'lintel-secret',
}
