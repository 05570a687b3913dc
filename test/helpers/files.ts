import { accessSync, constants, existsSync, mkdtempSync, readFileSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, gzipSync } from 'node:zlib';

/** A fresh temporary folder for one test. */
export function tempDir(prefix = 'hcas-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * A fresh temporary folder in memory when the machine has a usable tmpfs (/dev/shm, executable, 4 GiB free),
 * else in the temporary folder. For tests that write tens of thousands of files (static exports): on this
 * project's machines /tmp is ext4 mounted with `discard`, where removing one export's 122,624 files took 50 s
 * quiet and over 120 s in CI beside the container builds; on tmpfs 2 s.
 */
export function manyFilesDir(prefix = 'hcas-test-'): string {
  return mkdtempSync(path.join(memoryFolder() ?? tmpdir(), prefix));
}

const MEMORY_FOLDER = '/dev/shm';
const MEMORY_NEEDED = 4 * 1024 ** 3;

function memoryFolder(): string | undefined {
  try {
    const mount = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find(([, point]) => point === MEMORY_FOLDER);
    // noexec would stop a package copy's scripts (its bin) from running there.
    if (mount?.[2] !== 'tmpfs' || mount[3].split(',').includes('noexec')) return undefined;
    accessSync(MEMORY_FOLDER, constants.W_OK);
    const { bavail, bsize } = statfsSync(MEMORY_FOLDER);
    return bavail * bsize >= MEMORY_NEEDED ? MEMORY_FOLDER : undefined;
  } catch {
    return undefined; // not Linux, or no such mount
  }
}

/** Writes text as-is, gzipped, or as the only entry of a zip archive, chosen by the file's extension. */
export function writeInput(file: string, text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (file.endsWith('.gz')) writeFileSync(file, gzipSync(bytes));
  else if (file.endsWith('.zip')) writeFileSync(file, storedZip(path.basename(file).replace(/\.zip$/, '.csv'), bytes));
  else writeFileSync(file, bytes);
  return file;
}

/** A minimal zip archive (one stored entry), enough to test the reader without a zip library. */
function storedZip(name: string, data: Buffer): Buffer {
  const nameBytes = Buffer.from(name);
  const crc = crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(nameBytes.length, 28);
  const centralOffset = local.length + nameBytes.length + data.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + nameBytes.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  return Buffer.concat([local, nameBytes, data, central, nameBytes, end]);
}

/**
 * Where the original public files live (the maintainers' copy beside the clone, not in the package), and
 * whether they are here: the tests that compare against them skip without them (test/helpers/shared-data.ts
 * says so once), and fail under CI=true.
 */
export const SHARED_DATA = path.resolve(import.meta.dirname, '../../../shared/data');
export const HAVE_SHARED_DATA = existsSync(path.join(SHARED_DATA, 'census/2023_Gaz_zcta_national.txt.gz'));
