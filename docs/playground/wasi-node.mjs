// docs/playground/wasi-node.mjs - runs the playground's qsched.wasm under
// node's own WASI (node >= 20), as a command: used by the wasm-vs-native
// comparison (tests/browser/wasm-compare.mjs).  No directory is
// preopened: the stream comes on standard input (node's WASI keeps every
// preopened directory open for the life of the process, one descriptor per
// run).
import { WASI } from 'node:wasi';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

let compiled = null;

export async function loadModule(wasmPath) {
  if (!compiled) compiled = await WebAssembly.compile(fs.readFileSync(wasmPath));
  return compiled;
}

// Runs `qsched ARGS` in the wasm build; returns { code, stdout, stderr }
// (Buffers).  stdinPath: a file for standard input, or null (empty).
export async function runWasm(module, args, stdinPath = null) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qsched-wasi-'));
  const outPath = path.join(dir, 'out'), errPath = path.join(dir, 'err');
  const out = fs.openSync(outPath, 'w'), err = fs.openSync(errPath, 'w');
  const emptyPath = path.join(dir, 'empty');
  if (!stdinPath) fs.writeFileSync(emptyPath, '');
  const inp = fs.openSync(stdinPath || emptyPath, 'r');
  const wasi = new WASI({ version: 'preview1', args: ['qsched', ...args], env: {},
    preopens: {}, stdin: inp, stdout: out, stderr: err, returnOnExit: true });
  const inst = await WebAssembly.instantiate(module, wasi.getImportObject());
  let code;
  try {
    code = wasi.start(inst);
  } finally {
    fs.closeSync(out); fs.closeSync(err); fs.closeSync(inp);
  }
  const res = { code, stdout: fs.readFileSync(outPath), stderr: fs.readFileSync(errPath) };
  fs.rmSync(dir, { recursive: true, force: true });
  return res;
}
