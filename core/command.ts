import type { Command } from 'commander';

/**
 * One entry of the `hcas` command table: the command names a module registers, and that module, loaded
 * only when one of its commands runs (or for `--help`). The pipeline and the API each list their own
 * commands; bin/hcas.js joins the two lists.
 */
export interface CommandEntry {
  names: readonly string[];
  load(): Promise<(program: Command) => void>;
}
