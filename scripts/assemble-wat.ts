// Assembles the search kernels' WebAssembly text (src/retrieval/*.wat) with wabt's wat2wasm (the devDependency `wabt`).
// Run: node --import tsx scripts/assemble-wat.ts src/retrieval/int8-dot.wat   (prints the module as base64, the
// text to paste into the kernel's .ts file). The test suite checks that each kernel's bytes are its .wat's.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import wabtInit from 'wabt';

/**
 * The WebAssembly binary of a module in the text format (SIMD on), as wabt's wat2wasm writes it.
 *
 * @example
 * ```ts
 * const bytes = await assembleWat('(module (func (export "nop")))');
 * await WebAssembly.compile(bytes);
 * ```
 */
export async function assembleWat(text: string, filename = 'kernel.wat'): Promise<Uint8Array> {
  const wabt = await wabtInit();
  const module = wabt.parseWat(filename, text, { simd: true });
  try {
    return Uint8Array.from(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const path = process.argv[2];
  if (path === undefined) throw new Error('usage: node --import tsx scripts/assemble-wat.ts <file.wat>');
  process.stdout.write(`${Buffer.from(await assembleWat(readFileSync(path, 'utf8'), path)).toString('base64')}\n`);
}
