// Research harness entry: `node --import tsx bench/retrieval-lab/lab.ts -t wsum=2,wsl=1,spk=1` (see docs/retrieval-quality.md).
import { run } from './harness.js';
import './techniques.js';

await run();
