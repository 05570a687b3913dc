#!/usr/bin/env node
// Entry point of the `hcas` command. It runs the JavaScript that `npm run build` compiles from the
// TypeScript into dist/ (npm install and npm start build it too), and loads only the command that runs.
import module from 'node:module';
import { unsupportedNode } from './supported-node.js';

// Before anything else loads: on an older Node the SQLite binding would crash the process later, natively.
const unsupported = unsupportedNode();
if (unsupported) {
  process.stderr.write(`${unsupported}\n`);
  process.exit(3); // the installation cannot run here (README, "Exit codes")
}

// Stack traces name the .ts sources (dist/ carries source maps); Node reads a map only when it prints a trace.
process.setSourceMapsEnabled(true);
// Keep V8's compiled code between runs, so a one-shot command parses less at startup.
module.enableCompileCache();

const dist = new URL('../dist/', import.meta.url);
let modules;
try {
  modules = await Promise.all([
    import(new URL('src/cli/main.js', dist).href),
    import(new URL('producers/cli/index.js', dist).href),
    import(new URL('pipeline/cli/index.js', dist).href),
    import(new URL('src/cli/commands/index.js', dist).href),
    import(new URL('src/cli/rerun.js', dist).href),
  ]);
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.message).includes('/dist/')) throw error;
  process.stderr.write('hcas: the compiled code in dist/ is missing; run `npm run build` (npm install does it too)\n');
  process.exit(3); // not a usage error nor a missing answer: the installation is incomplete (README, "Exit codes")
}
const [{ main }, { PRODUCER_COMMANDS }, { PIPELINE_COMMANDS }, { API_COMMANDS }, { missingRuntime, rerunWith }] = modules;
const commands = [...PRODUCER_COMMANDS, ...PIPELINE_COMMANDS, ...API_COMMANDS];
// A long batch command (hcas build) runs in a child that has the V8 flags it needs; they act only at startup.
const runtime = missingRuntime(process.argv, commands);
process.exitCode = runtime ? await rerunWith(runtime) : await main(process.argv, commands);
