import { write as writeFd, writeSync } from "node:fs";

/** At most this much text waits to be written; lines beyond it are counted and left out. */
export const ASYNC_WRITER_MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/** How long to wait before writing again to a pipe that is full (EAGAIN). */
const RETRY_FULL_MS = 10;

/** Text written to a file descriptor off the event loop, in order. */
export interface AsyncWriter {
  /** Queues `text`; returns at once. */
  write(text: string): void;
  /** Resolves once everything queued so far was written (or could not be: the descriptor is gone). */
  flush(): Promise<void>;
  /** Writes whatever is still queued, blocking; for an exit that cannot wait. */
  flushSync(): void;
}

/**
 * A writer for a long-running server's stderr: a write to a pipe or socket whose reader is slow
 * (journald under load, a full pipe) blocks the calling thread, and on the event loop that stalls
 * every task in the process. Here text is queued and written by fs.write on libuv's thread pool,
 * one write at a time, so lines keep their order and the event loop never waits for the reader.
 * A full non-blocking pipe is retried shortly after; a descriptor that fails otherwise (EPIPE: the
 * reader is gone) is given up and what is queued dropped, as a synchronous write would have thrown.
 * When more than `maxQueuedBytes` wait, further lines are left out and the next line written says
 * how many were, as a warning line put in the log's shape by `shapeNotice` (JSON for a JSON log).
 */
export function createAsyncWriter(
  fd: number,
  maxQueuedBytes = ASYNC_WRITER_MAX_QUEUED_BYTES,
  shapeNotice: (line: string) => string = (line) => line,
): AsyncWriter {
  let queue: string[] = [];
  let queuedBytes = 0;
  let writing = false;
  let broken = false;
  let leftOut = 0;
  let idle: (() => void)[] = [];

  const settle = () => {
    writing = false;
    const waiting = idle;
    idle = [];
    for (const resolve of waiting) resolve();
  };

  const take = (): Buffer => {
    const chunk = Buffer.from(queue.join(""), "utf8");
    queue = [];
    queuedBytes = 0;
    return chunk;
  };

  const writeChunk = (chunk: Buffer, offset: number): void => {
    writeFd(fd, chunk, offset, chunk.length - offset, null, (error, written) => {
      if (error !== null) {
        if (error.code === "EAGAIN") {
          setTimeout(() => writeChunk(chunk, offset), RETRY_FULL_MS);
          return;
        }
        broken = true;
        queue = [];
        queuedBytes = 0;
        settle();
        return;
      }
      if (offset + written < chunk.length) return writeChunk(chunk, offset + written);
      if (queue.length > 0) return writeChunk(take(), 0);
      settle();
    });
  };

  return {
    write(text) {
      if (broken) return;
      const bytes = Buffer.byteLength(text, "utf8");
      if (queuedBytes + bytes > maxQueuedBytes) {
        leftOut += 1;
        return;
      }
      if (leftOut > 0) {
        const notice = `${shapeNotice(`warning: ${leftOut} log line(s) left out: the log's reader fell more than ${maxQueuedBytes} bytes behind`)}\n`;
        leftOut = 0;
        queue.push(notice);
        queuedBytes += Buffer.byteLength(notice, "utf8");
      }
      queue.push(text);
      queuedBytes += bytes;
      if (!writing) {
        writing = true;
        writeChunk(take(), 0);
      }
    },
    flush() {
      if (!writing) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
    flushSync() {
      if (broken || queue.length === 0) return;
      const chunk = take();
      try {
        for (let offset = 0; offset < chunk.length;) offset += writeSync(fd, chunk, offset);
      } catch {
        broken = true;
      }
    },
  };
}
