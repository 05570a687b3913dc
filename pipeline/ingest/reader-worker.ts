/**
 * Worker thread of the threaded reader (read.ts): opens the file, decompresses and splits it into record
 * batches here, beside the main thread that parses and stores the rows. Batches are transferred, not
 * copied, and at most a few are in flight, so memory stays flat however large the file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BuildError } from '../errors.ts';
import { DelimitedReader } from './delimited.ts';
import { openBytes } from './open.ts';
import type { FromWorker, ToWorker, WorkerInput } from './reader-protocol.ts';

const port = parentPort!;
const { file, sourceKey, inFlight } = workerData as WorkerInput;
let credits = inFlight;
let wake: (() => void) | null = null;
let columns: Promise<number[]> | null = null;
let receiveColumns: (columns: number[]) => void = () => {};
columns = new Promise((resolve) => (receiveColumns = resolve));
port.on('message', (message: ToWorker) => {
  if (message.type === 'columns') receiveColumns(message.columns);
  else if (message.type === 'ack') {
    credits++;
    wake?.();
  }
});
const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

try {
  const { stream, position } = await openBytes(file, sourceKey);
  const reader = await DelimitedReader.open(stream);
  post({ type: 'header', header: reader.header });
  reader.select(await columns);
  for await (const batch of reader.batches()) {
    while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
    credits--;
    const { bytes, index } = batch.parts;
    post({ type: 'batch', bytes, index, count: batch.count, width: batch.width, position: { ...position, textBytesRead: reader.textBytesRead } }, [bytes.buffer as ArrayBuffer, index.buffer as ArrayBuffer]);
  }
  post({ type: 'end' });
} catch (error) {
  post({ type: 'error', message: (error as Error).message, buildError: error instanceof BuildError });
}
