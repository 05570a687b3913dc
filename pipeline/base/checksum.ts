import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';

/** SHA-256 and size of a file, streamed (inputs can be gigabytes). */
export async function fileChecksum(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return { sha256: hash.digest('hex'), bytes: statSync(file).size };
}
