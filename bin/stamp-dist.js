#!/usr/bin/env node
// Run by `npm run build` right after tsc: records which sources dist/ was compiled from, so that `hcas build`
// and `hcas sample` refuse a dist/ older than its sources (pipeline/base/code.ts, refuseStaleCompiledCode).
const { stampCompiledCode } = await import(new URL('../dist/pipeline/base/code.js', import.meta.url).href);
stampCompiledCode();
