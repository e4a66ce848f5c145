// Micro benchmark of reading packed vectors: the CPU time of unpacking 100k 100-dimension vectors in a fresh process, the JS loop against the WebAssembly kernel, interleaved.
// Usage: npm run bench:unpack-vector [-- --vectors 100000 --dimensions 100 --rounds 9]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './bench-args.js';
import { jsUnpackVector, packVector, unpackVector } from '../src/stores/sqlite/packed-vector.js';
import { normalEmbedding, seededRandom } from './synthetic-corpus.js';

const { values } = benchArgs(import.meta.url, {
  options: {
    vectors: { type: 'string', default: '100000' },
    dimensions: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '9' },
    child: { type: 'string' },
  },
});
const vectorCount = Number(values.vectors);
const dimensions = Number(values.dimensions);

/** `count` packed unit vectors of roughly normal components (as embedders make them), seeded. */
function packedVectors(count: number, dims: number): Buffer[] {
  const random = seededRandom(13);
  const out: Buffer[] = [];
  for (let row = 0; row < count; row++) {
    const vector = normalEmbedding(random, dims);
    const packed = packVector(vector);
    if (packed === null) throw new Error('a vector did not pack');
    out.push(packed);
  }
  return out;
}

/** One fresh process's pass: the first unpack of every vector (as a cold open reads them), CPU and wall ms. */
function child(kind: string): void {
  const decode = kind === 'js' ? jsUnpackVector : unpackVector;
  const packed = packedVectors(vectorCount, dimensions);
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  let check = 0;
  for (const bytes of packed) check += decode(bytes)[0] as number;
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ kind, cpuMs: (used.user + used.system) / 1000, wallMs, check })}\n`);
}

const median = (list: number[]) => {
  const sorted = [...list].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

if (values.child !== undefined) {
  child(values.child);
} else {
  const script = fileURLToPath(import.meta.url);
  const results: Record<string, { cpu: number[]; wall: number[]; check: number[] }> = { js: { cpu: [], wall: [], check: [] }, wasm: { cpu: [], wall: [], check: [] } };
  for (let round = 0; round < Number(values.rounds); round++) {
    // Interleaved, and the order alternated, so a neighbour's load falls on both.
    for (const kind of round % 2 === 0 ? ['js', 'wasm'] : ['wasm', 'js']) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', script, '--child', kind, '--vectors', String(vectorCount), '--dimensions', String(dimensions)], { encoding: 'utf8' });
      if (run.status !== 0) throw new Error(run.stderr);
      const line = JSON.parse(run.stdout.trim()) as { cpuMs: number; wallMs: number; check: number };
      const into = results[kind] as { cpu: number[]; wall: number[]; check: number[] };
      into.cpu.push(line.cpuMs);
      into.wall.push(line.wallMs);
      into.check.push(line.check);
    }
  }
  if (results['js']?.check[0] !== results['wasm']?.check[0]) throw new Error('the JS loop and the kernel read different vectors');
  process.stdout.write(`unpacking ${vectorCount} packed ${dimensions}-dimension vectors, first pass in a fresh process, ${values.rounds} interleaved rounds (medians)\n`);
  for (const [kind, { cpu, wall }] of Object.entries(results)) {
    process.stdout.write(`  ${kind === 'js' ? 'JS loop          ' : 'WebAssembly      '} CPU ${median(cpu).toFixed(1)} ms   wall ${median(wall).toFixed(1)} ms   (CPU runs: ${cpu.map((ms) => ms.toFixed(0)).join(' ')})\n`);
  }
}
