#!/usr/bin/env node
// Entry point of the `hcas` command. TypeScript sources run through tsx's loader, so there is no
// separate compile step that could leave a stale build behind.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
const { PIPELINE_COMMANDS } = await import('../pipeline/cli/index.ts');
const { API_COMMANDS } = await import('../src/cli/commands/index.ts');
process.exitCode = await main(process.argv, [...PIPELINE_COMMANDS, ...API_COMMANDS]);
