// Makes the shipped word table before the suites run when this checkout has none yet (npm run build makes it too).
import { buildShippedWordVectors } from '../scripts/build-word-vectors.js';

export default async function setup(): Promise<void> {
  await buildShippedWordVectors();
}
