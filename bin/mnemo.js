#!/usr/bin/env node
// The `mnemo` command: runs the compiled CLI (built by `npm run build`, which `npm ci` runs through `prepare`).
import { main } from '../dist/cli/main.js';

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (error) => { console.error(error); process.exitCode = 1; },
);
