// Runs the mnemo CLI from source for bench:serve (node --import tsx bench/serve-child.ts <args>).
import { main } from '../src/cli/main.js';

main(process.argv).then((code) => {
  process.exitCode = code;
});
