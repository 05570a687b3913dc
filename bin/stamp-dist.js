#!/usr/bin/env node
// Run by `npm run build` right after tsc: records which sources dist/ was compiled from, so that `hcas build`
// and `hcas sample` refuse a dist/ older than its sources (pipeline/build-id.ts, refuseStaleCompiledCode).
const { stampCompiledCode } = await import(new URL('../dist/pipeline/build-id.js', import.meta.url).href);
stampCompiledCode();
