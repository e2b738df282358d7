/**
 * A real S3-compatible server for the tests (s3rver): its objects in a temporary directory, one
 * bucket made at start. It knows one key pair, S3RVER/S3RVER, and refuses other access key ids
 * (it does not verify SigV4 signatures, so a wrong secret passes). It speaks PutObject,
 * multipart uploads, GetObject, CopyObject and DeleteObjects; it has no AbortMultipartUpload
 * (the parts of an aborted upload stay in its directory until stop()). Its GetObject takes a Range
 * `bytes=a-b` or `bytes=a-` (no `bytes=-n`), and reads `bytes=0-0` as the whole object.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Where s3rver keeps the bucket's objects. */
  directory: string;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'quire-test'): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-test-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    // s3rver's fixed credentials.
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    directory,
    stop: async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
