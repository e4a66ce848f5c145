// Optional peer packages stay optional: no source file imports one statically outside its adapter, and each adapter's entry point loads without it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const SOURCE = join(ROOT, 'src');

/** The folder allowed to import each optional peer statically; a peer not named here may be imported only with `await import()`. */
const ADAPTERS: Record<string, { folder: string; entry: string }> = {
  ai: { folder: 'src/adapters/ai-sdk/', entry: 'src/adapters/ai-sdk/index.ts' },
  '@langchain/core': { folder: 'src/adapters/langchain/', entry: 'src/adapters/langchain/index.ts' },
};

/**
 * Peers of a subpath that is a plugin of that framework itself, so it imports it statically: the contract suites of
 * `mnemo-engine/testing` call vitest's describe/it/expect and run only inside vitest.
 */
const FRAMEWORK_SUBPATHS: Record<string, string> = { vitest: 'src/testing/' };

interface StaticImport {
  specifier: string;
  line: number;
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { peerDependenciesMeta?: Record<string, { optional?: boolean }>; optionalDependencies?: Record<string, string> };
const OPTIONAL = [...Object.entries(manifest.peerDependenciesMeta ?? {}).filter(([, meta]) => meta.optional === true).map(([name]) => name), ...Object.keys(manifest.optionalDependencies ?? {})].sort();

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The imports and re-exports of a file that load a module when it runs (type-only ones are erased, so they do not). */
function staticImports(path: string): StaticImport[] {
  const file = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.ES2022, true);
  const found: StaticImport[] = [];
  const add = (specifier: ts.Expression | undefined, node: ts.Node) => {
    if (specifier !== undefined && ts.isStringLiteral(specifier)) found.push({ specifier: specifier.text, line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1 });
  };
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      const typeOnly = clause !== undefined && (clause.isTypeOnly || (clause.name === undefined && clause.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      if (!typeOnly) add(statement.moduleSpecifier, statement);
    } else if (ts.isExportDeclaration(statement) && !statement.isTypeOnly) {
      const named = statement.exportClause;
      const typeOnly = named !== undefined && ts.isNamedExports(named) && named.elements.length > 0 && named.elements.every((element) => element.isTypeOnly);
      if (!typeOnly) add(statement.moduleSpecifier, statement);
    } else if (ts.isImportEqualsDeclaration(statement) && !statement.isTypeOnly && ts.isExternalModuleReference(statement.moduleReference)) {
      add(statement.moduleReference.expression, statement);
    }
  }
  return found;
}

const peerOf = (specifier: string) => OPTIONAL.find((peer) => specifier === peer || specifier.startsWith(`${peer}/`));
const local = (path: string) => relative(ROOT, path).split('\\').join('/');

describe('optional peers', () => {
  it('are declared optional in package.json, each with an adapter folder', () => {
    for (const peer of Object.keys(ADAPTERS)) expect(OPTIONAL, `${peer} must be an optional peer (peerDependenciesMeta)`).toContain(peer);
  });

  it('are imported statically only inside their adapter folder', () => {
    const violations: string[] = [];
    for (const path of sourceFiles(SOURCE)) {
      for (const { specifier, line } of staticImports(path)) {
        const peer = peerOf(specifier);
        if (peer === undefined) continue;
        const adapter = ADAPTERS[peer];
        if (FRAMEWORK_SUBPATHS[peer] !== undefined && local(path).startsWith(FRAMEWORK_SUBPATHS[peer])) continue;
        if (adapter === undefined || !local(path).startsWith(adapter.folder)) {
          violations.push(`${local(path)}:${line} imports ${specifier} statically; load it with \`await import('${specifier}')\` and an install hint${adapter === undefined ? '' : `, or move the code into ${adapter.folder}`}`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it("leave each adapter's entry point loadable without them: no static import chain from it reaches the peer", () => {
    for (const [peer, adapter] of Object.entries(ADAPTERS)) {
      const seen = new Set<string>();
      const reaches: string[] = [];
      const visit = (path: string, chain: string[]) => {
        if (seen.has(path)) return;
        seen.add(path);
        for (const { specifier } of staticImports(path)) {
          if (peerOf(specifier) === peer) reaches.push([...chain, local(path), specifier].join(' -> '));
          if (specifier.startsWith('.')) visit(resolve(dirname(path), specifier.replace(/\.js$/u, '.ts')), [...chain, local(path)]);
        }
      };
      visit(join(ROOT, adapter.entry), []);
      expect(reaches, `${adapter.entry} must load ${peer} lazily (loadPeer), so that a missing package gives an install hint`).toEqual([]);
    }
  });

  it('are caught by this test: a static value import is found, a type-only one is not', () => {
    const probe = join(SOURCE, 'adapters', 'ai-sdk', 'memory-tools.ts');
    expect(staticImports(probe).map((found) => found.specifier)).not.toContain('ai');
    expect(readFileSync(probe, 'utf8')).toMatch(/^import type \{ Tool \} from 'ai';$/mu);
    expect(staticImports(join(SOURCE, 'adapters', 'langchain', 'mnemo-retriever.ts')).map((found) => found.specifier)).toContain('@langchain/core/retrievers');
  });
});
