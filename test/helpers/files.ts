import { cpSync, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32, gzipSync } from 'node:zlib';

/** A fresh temporary folder for one test. */
export function tempDir(prefix = 'hcas-test-'): string {
  return mkdtempSync(path.join(tmpdir(), prefix));
}

/**
 * Moves a file or folder: renamed, or copied and removed when `to` is on another file system (a test run's
 * temp folder may be in memory while the build cache is on disk: test/helpers/run-temp.ts).
 */
export function moveSync(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    cpSync(from, to, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    rmSync(from, { recursive: true, force: true });
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
