// tests/browser/wasm-compare.mjs - the playground's WebAssembly build of
// qsched must behave exactly like the native one (issue 18: "No behaviour
// may differ from the native build").
//
// Owns: running build/playground/qsched.wasm under node's WASI and
// build/qsched natively on the same inputs (the stream on standard input,
// `-`, for both), and comparing exit status, stdout and stderr byte for
// byte:
//   - every golden stream (tests/golden/*.events) with its own "# args:",
//     and again with --explain, --format jsonl --explain --stats,
//     --format view-json, and --profile postfix --explain;
//   - every malformed stream (tests/errors/*.events): status 2, same
//     FILE:LINE: reason, same valid prefix;
//   - every conformance vector (tests/conformance/*/*.events) with
//     --explain;
//   - `qsched gen` itself for 24 seeds (sizes medium and large), and the
//     --explain --check-invariants traces of the streams it writes.
// Prints "ok NAME" / "FAIL NAME: ..." per input and a closing count line
// "wasm-compare: N runs, N equal".  Usage: node wasm-compare.mjs ROOT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadModule, runWasm } from '../../docs/playground/wasi-node.mjs';

process.removeAllListeners('warning'); // node's "WASI is experimental" note
const root = path.resolve(process.argv[2] || '.');
const wasmPath = path.join(root, 'build/playground/qsched.wasm');
const native = path.join(root, 'build/qsched');
const module = await loadModule(wasmPath);

function list(dir, re) {
  const d = path.join(root, dir);
  if (!fs.existsSync(d)) return [];
  return fs.readdirSync(d).filter((f) => re.test(f)).sort().map((f) => path.join(dir, f));
}
function argsOf(rel) {
  const first = fs.readFileSync(path.join(root, rel), 'utf8').split('\n')[0];
  const m = /^# args: *(.*)$/.exec(first);
  return m ? m[1].trim().split(/\s+/).filter(Boolean) : [];
}

let runs = 0, equal = 0, fails = 0;
async function compare(name, args, stdinRel = null) {
  const input = stdinRel ? path.join(root, stdinRel) : null;
  const n = spawnSync(native, args, { cwd: root, maxBuffer: 1 << 30,
                                      input: input ? fs.readFileSync(input) : '' });
  const w = await runWasm(module, args, input);
  runs++;
  const why = [];
  if (n.status !== w.code) why.push(`exit native ${n.status}, wasm ${w.code}`);
  if (Buffer.compare(n.stdout, w.stdout) !== 0) why.push(`stdout differs (native ${n.stdout.length} bytes, wasm ${w.stdout.length})`);
  if (Buffer.compare(n.stderr, w.stderr) !== 0) why.push(`stderr differs: native "${n.stderr.toString().split('\n')[0]}", wasm "${w.stderr.toString().split('\n')[0]}"`);
  if (why.length) { fails++; console.log(`FAIL wasm-compare/${name}: ${why.join('; ')}`); return false; }
  equal++;
  return true;
}

const variants = [
  ['own', null],
  ['explain', ['--explain']],
  ['jsonl', ['--format', 'jsonl', '--explain', '--stats']],
  ['view-json', ['--format', 'view-json']],
  ['postfix', ['--profile', 'postfix', '--explain']],
];
let goldens = 0;
for (const rel of list('tests/golden', /\.events$/)) {
  goldens++;
  let ok = true;
  for (const [v, extra] of variants) {
    const args = extra ? [...extra, '-'] : [...argsOf(rel), '-'];
    ok = (await compare(`${path.basename(rel, '.events')}/${v}`, args, rel)) && ok;
  }
  if (ok) console.log(`ok wasm-compare/golden/${path.basename(rel, '.events')}`);
}
let errors = 0;
for (const rel of list('tests/errors', /\.events$/)) {
  errors++;
  if (await compare(`errors/${path.basename(rel, '.events')}`, ['-'], rel))
    console.log(`ok wasm-compare/errors/${path.basename(rel, '.events')}`);
}
let vectors = 0, vectorsOk = 0;
for (const dir of ['tests/conformance/gen', 'tests/conformance/hand']) {
  for (const rel of list(dir, /\.events$/)) {
    vectors++;
    if (await compare(`${dir.split('/').pop()}/${path.basename(rel, '.events')}`, ['--explain', '-'], rel)) vectorsOk++;
  }
}
if (vectors) {
  if (vectorsOk === vectors) console.log(`ok wasm-compare/conformance (${vectors} vectors)`);
}
let gens = 0, gensOk = 0;
const genDir = path.join(root, 'build/wasm-compare');
fs.mkdirSync(genDir, { recursive: true });
for (let seed = 1; seed <= 24; seed++) {
  const size = seed % 3 === 0 ? 'large' : 'medium';
  const args = ['gen', '--seed', String(seed), '--size', size];
  gens++;
  if (!(await compare(`gen/${seed}`, args))) continue;
  const rel = `build/wasm-compare/gen-${seed}.events`;
  fs.writeFileSync(path.join(root, rel), spawnSync(native, args, { cwd: root }).stdout);
  if (await compare(`gen/${seed}/trace`, ['--explain', '--check-invariants', '-'], rel)) gensOk++;
}
if (gensOk === gens) console.log(`ok wasm-compare/gen (${gens} seeds, streams and traces)`);
if (goldens === 0) { console.log('FAIL wasm-compare: no golden stream found'); fails++; }
console.log(`wasm-compare: ${runs} runs (${goldens} golden streams x ${variants.length} option sets, ` +
            `${errors} malformed streams, ${vectors} conformance vectors, ${gens} generated streams x 2), ` +
            `${equal} equal, ${fails} differ`);
process.exit(fails ? 1 : 0);
