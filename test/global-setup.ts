// Builds the compact word vectors once before the suites run, so parallel test files never convert at the same time.
import { loadWordVectors } from '../src/embedders/static/index.js';

export default async function setup(): Promise<void> {
  await loadWordVectors();
}
