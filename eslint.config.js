// Lint rules for Mnemo: typescript-eslint's recommended set plus the habits of STYLE.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.bench/**', 'test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        { selector: 'CallExpression[callee.property.name="only"]', message: 'No focused tests.' },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
    },
  },
  {
    // The surfaces call the engine (Mnemo and its parts), never its store: `memory.store.listTurns(...)` is refused.
    files: ['src/cli/**/*.ts', 'src/server/**/*.ts', 'src/adapters/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'CallExpression[callee.property.name="only"]', message: 'No focused tests.' },
        { selector: 'MemberExpression[object.type="MemberExpression"][object.property.name="store"]', message: 'Surfaces call the engine, never its store: add a Mnemo (or NarrativeMemory, LivingMemory, LoreBook) method for this and call that.' },
      ],
    },
  },
  {
    files: ['web/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(['window', 'document', 'location', 'sessionStorage', 'fetch', 'URLSearchParams', 'HashChangeEvent', 'Node', 'console'].map((name) => [name, 'readonly'])),
    },
  },
  {
    files: ['bin/**/*.js', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
