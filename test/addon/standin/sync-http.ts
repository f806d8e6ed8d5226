/**
 * Synchronous HTTP for the UrlFetchApp stand-in: a worker thread makes the real requests while
 * the calling thread blocks in Atomics.wait, as UrlFetchApp blocks a script.
 */
import path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';

export interface RawReq {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: Uint8Array | string;
}
export interface RawRes {
  status?: number;
  headers?: Record<string, string>;
  body?: Uint8Array;
  error?: string;
  ms: number;
}

export class SyncHttp {
  private worker = new Worker(path.join(import.meta.dirname, 'http-worker.mjs'));
  constructor() {
    this.worker.unref();
  }
  send(requests: RawReq[]): RawRes[] {
    if (requests.length === 0) return [];
    const flag = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    this.worker.postMessage({ requests, flag, port: port2 }, [port2]);
    const r = Atomics.wait(new Int32Array(flag), 0, 0, 120_000);
    if (r === 'timed-out') throw new Error('HTTP worker did not answer within 120 s');
    const msg = receiveMessageOnPort(port1);
    port1.close();
    return msg!.message as RawRes[];
  }
  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
