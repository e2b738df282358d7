/**
 * The file store on an S3 bucket (AWS, or an S3-compatible server through S3_ENDPOINT). A put
 * streams through the hashing, counting stream into lib-storage's Upload: one PutObject for a
 * small file, a multipart upload (5 MB parts, 4 at a time: at most about 20 MB in memory per put)
 * for a large one or one of unknown length. A body that fails or grows past the limit fails the
 * Upload's input, so the Upload aborts its multipart upload and nothing is completed; should an
 * object have been completed all the same, it is deleted before the error goes on.
 */
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Settings } from '../config.js';
import { bodyStream, keyParts, Measure } from './measure.js';
import { FileStoreFault, fileMissing, storeUnavailable, type ByteRange, type FileStore, type StoredFile } from './file-store.js';

/** DeleteObjects takes at most this many keys per request. */
const DELETE_BATCH = 1000;

/**
 * How long a request to S3 may take to connect, and to get its answer's head once its body is
 * sent (a part of an upload is in memory, at most 5 MB; a download's bytes stream after the head,
 * unbounded). Without them a server that took connections and answered nothing held the requests
 * that needed it for ever.
 */
export interface S3Timeouts {
  connectMs: number;
  answerMs: number;
}
const TIMEOUTS: S3Timeouts = { connectMs: 5_000, answerMs: 60_000 };

/**
 * The SDK's error for a store that is away: a request that got no answer (refused, dropped, timed
 * out: its retries spent) or a 5xx. Only errors that came through the SDK's requests (`$metadata`):
 * a body that failed (the client went away) is the client's, and credentials the SDK could not
 * find are a configuration error (a 500), not an outage.
 */
function isAway(e: unknown): boolean {
  const err = e as { $metadata?: { httpStatusCode?: number }; name?: string } | null;
  if (!err?.$metadata) return false;
  const status = err.$metadata.httpStatusCode;
  return status === undefined ? err.name !== 'CredentialsProviderError' : status >= 500;
}

/** `e`, or the store's 503 when it says the store is away. */
const asStoreError = (e: unknown): unknown => (isAway(e) ? storeUnavailable(e) : e);

/** The SDK's answer for a key with nothing under it (a 404 that is not a missing bucket, which is a configuration error). */
function isMissingKey(e: unknown): boolean {
  const err = e as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  if (err.name === 'NoSuchKey' || err.Code === 'NoSuchKey') return true;
  return err.$metadata?.httpStatusCode === 404 && err.name !== 'NoSuchBucket';
}

export class S3FileStore implements FileStore {
  readonly client: S3Client;
  private readonly bucket: string;

  /** `timeouts`: shorter ones for tests. */
  constructor(settings: S3Settings, timeouts = TIMEOUTS) {
    const config: S3ClientConfig = {
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      requestHandler: { connectionTimeout: timeouts.connectMs, requestTimeout: timeouts.answerMs, throwOnRequestTimeout: true },
    };
    if (settings.endpoint) config.endpoint = settings.endpoint;
    // Unset: the SDK's default chain (environment, shared profile, container or instance role).
    if (settings.accessKeyId && settings.secretAccessKey) {
      config.credentials = { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey };
    }
    this.client = new S3Client(config);
    this.bucket = settings.bucket;
  }

  async put(key: string, body: Readable | Buffer, maxBytes: number): Promise<StoredFile> {
    keyParts(key);
    const source = bodyStream(body, maxBytes);
    const measure = new Measure(maxBytes);
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: measure }, leavePartsOnError: false });
    const feeding = pipeline(source, measure);
    // An Upload that fails stops reading: end the feeding too, or it would wait for ever.
    const uploading = upload.done().catch((e: unknown) => {
      measure.destroy(e as Error);
      throw e;
    });
    const [fed, uploaded] = await Promise.allSettled([feeding, uploading]);
    if (fed.status === 'fulfilled' && uploaded.status === 'fulfilled') return measure.stored();
    // Not reachable through the Upload's own logic (its input failed before its end), but cheap
    // to make sure of: nothing stays under the key.
    if (uploaded.status === 'fulfilled') await this.delete([key]);
    // The body's failure (too large, the client went away) is the cause; the Upload's (an aborted
    // upload, or on some servers a failed abort) only follows from it. When the Upload failed
    // first, the feeding ended with its error.
    const uploadFailure = uploaded.status === 'rejected' ? uploaded.reason : undefined;
    if (fed.status === 'rejected' && fed.reason !== uploadFailure) throw fed.reason;
    if (isAway(uploadFailure)) throw storeUnavailable(uploadFailure);
    // S3's own refusal came through a request (`$metadata`); else the Upload failed with the body's error.
    throw (uploadFailure as { $metadata?: unknown } | null)?.$metadata ? new FileStoreFault(uploadFailure) : uploadFailure;
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    keyParts(key);
    try {
      return await this.object(key, range);
    } catch (e) {
      if (isMissingKey(e)) throw fileMissing();
      throw asStoreError(e);
    }
  }

  /** GetObject's body (`range` of it, when given); the SDK's error as it comes. */
  private async object(key: string, range?: ByteRange): Promise<Readable> {
    const asked = range && `bytes ${range.start}-${range.end}/`;
    const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range && `bytes=${range.start}-${range.end}` }));
    // On Node the SDK's body is an http.IncomingMessage: a Readable.
    if (!(res.Body instanceof Readable)) throw new Error('the S3 client returned a body that is not a Node stream');
    // A server may answer a Range with other bytes than it was asked for (RFC 9110 lets it send the
    // whole object): they would not be what the download's Content-Range and Content-Length say.
    if (asked && !res.ContentRange?.startsWith(asked)) {
      res.Body.destroy();
      throw new Error(`the S3 server answered ${res.ContentRange ?? 'the whole object'} for the range ${asked}*`);
    }
    return res.Body;
  }

  /**
   * HeadObject, one round trip while the bytes are there. Its 404 has no body, so it cannot say
   * NoSuchBucket; that one case asks GetObject, whose 404 names which is missing: a missing key is
   * false, a missing bucket the configuration error every get and put fails with (the plain GET's
   * 500, not the file's 404). Bytes put meanwhile (keys are never reused: only a test puts them
   * back) are not read, only closed.
   */
  async has(key: string): Promise<boolean> {
    keyParts(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (e) {
      if (!isMissingKey(e)) throw asStoreError(e);
    }
    try {
      (await this.object(key)).destroy();
      return true;
    } catch (e) {
      if (isMissingKey(e)) return false;
      throw asStoreError(e);
    }
  }

  async copy(from: string, to: string): Promise<void> {
    keyParts(from);
    keyParts(to);
    try {
      // CopySource is `<bucket>/<key>`, URL-encoded (the key's own `/` kept).
      const source = `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
      await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: source }));
    } catch (e) {
      if (isMissingKey(e)) throw fileMissing();
      throw asStoreError(e);
    }
  }

  async delete(keys: string[]): Promise<void> {
    for (const k of keys) keyParts(k);
    for (let i = 0; i < keys.length; i += DELETE_BATCH) {
      const batch = keys.slice(i, i + DELETE_BATCH);
      const res = await this.client
        .send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }))
        .catch((e: unknown) => {
          throw asStoreError(e);
        });
      // A missing key is reported as deleted by S3; some compatible servers say NoSuchKey instead.
      const failed = (res.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (failed.length > 0) {
        throw new Error(`S3 refused to delete ${failed.length} of ${batch.length} keys (first: ${failed[0].Key}: ${failed[0].Code} ${failed[0].Message ?? ''})`);
      }
    }
  }

  /** Incomplete multipart uploads are the bucket's lifecycle rule's to abort (README, S3_BUCKET). */
  async sweep(): Promise<number> {
    return 0;
  }

  /** Closes the client's connections (tests; a server keeps its store for its life). */
  destroy(): void {
    this.client.destroy();
  }
}
