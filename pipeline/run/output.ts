import { mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { BuildError } from '../base/errors.ts';
import { emitWidgetScript } from '../emit/widget.ts';
import { Reconciler } from '../ingest/reconcile.ts';
import { openStore } from '../store/open.ts';

/**
 * The files a build writes, each first under a temporary name beside `out`: the database (the working store,
 * with its scratch database attached) and the rejects file. `commit` renames them into place only when
 * everything succeeded, so a failed build never replaces a good one; `discard` removes them.
 */
export interface BuildOutput {
  out: string;
  rejectsFile: string;
  db: Database.Database;
  /** Every row read is landed or rejected here; its rejects go to the temporary rejects file. */
  reconciler: Reconciler;
}

/** Temporary names of one build's files (this process's). */
function temporaryFiles(out: string) {
  const rejectsFile = rejectsFileOf(out);
  return { db: `${out}.tmp-${process.pid}`, stage: `${out}.stage-${process.pid}`, rejects: `${rejectsFile}.tmp-${process.pid}` };
}

/** Opens the output's temporary files: the working store and the reconciliation. */
export function openOutput(out: string): BuildOutput {
  mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const temporary = temporaryFiles(out);
  for (const file of Object.values(temporary)) rmSync(file, { force: true });
  const db = openStore(temporary.db, temporary.stage);
  try {
    return { out, rejectsFile: rejectsFileOf(out), db, reconciler: new Reconciler(temporary.rejects) };
  } catch (error) {
    discardOutput({ out, db });
    throw error;
  }
}

/**
 * Ends the reconciliation once the last stage that may leave a landed row out has run, and stops the build
 * when a source has more invalid rows than the manifest allows.
 */
export async function closeReconciliation(output: BuildOutput, maxRejectRatio: number): Promise<void> {
  await output.reconciler.close();
  const over = [...output.reconciler.tallies.values()].filter((t) => t.read > 0 && t.invalid / t.read > maxRejectRatio);
  if (over.length === 0) return;
  const detail = over
    .map(
      (t) =>
        `${t.key}: ${t.invalid} of ${t.read} rows invalid (${((100 * t.invalid) / t.read).toFixed(1)}%), e.g. ${Object.values(t.reasons).find((r) => r.kind === 'invalid')?.example ?? ''}`,
    )
    .join('; ');
  throw new BuildError(
    `too many invalid rows (limit ${(maxRejectRatio * 100).toFixed(1)}% per file, max_reject_ratio in the manifest): ${detail}. The build was not written; see the reasons above and fix the input or its layout/columns in the manifest (rejects would go to ${output.rejectsFile}).`,
  );
}

/** Closes the database and renames the files into place; the widget script goes beside them. */
export function commitOutput(output: BuildOutput): void {
  const temporary = temporaryFiles(output.out);
  output.db.close();
  renameSync(temporary.rejects, output.rejectsFile);
  renameSync(temporary.db, output.out);
  emitWidgetScript(path.dirname(path.resolve(output.out)));
  rmSync(temporary.stage, { force: true });
}

/** Closes the database and removes every temporary file of a build that failed. */
export function discardOutput(output: Pick<BuildOutput, 'out' | 'db'>): void {
  if (output.db.open) output.db.close();
  for (const file of Object.values(temporaryFiles(output.out))) rmSync(file, { force: true });
}

/** The rejects file of an output: beside it, named after it (`dist-api/hcas.sqlite` -> `dist-api/hcas.rejects.csv`). */
export function rejectsFileOf(out: string): string {
  const file = path.resolve(out);
  return path.join(path.dirname(file), `${path.basename(file, path.extname(file))}.rejects.csv`);
}
