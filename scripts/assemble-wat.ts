// A WebAssembly text assembler for the small subset the search kernels use (src/retrieval/*.wat), so no toolchain is needed.
// Run: node --import tsx scripts/assemble-wat.ts src/retrieval/int8-dot.wat   (prints the module as base64)
// Supported: one module with memories and functions (params, results, locals, exports by name), folded
// instructions, block / loop / if-then-else with labels, the integer, float and SIMD operations in OPCODES below.
// The output is byte for byte what wabt's wat2wasm 1.0.39 gives for the same text (test/wasm-kernels.test.ts).
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

type Sexp = string | Sexp[];

const VALUE_TYPES: Record<string, number> = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b };

/** Plain opcodes (one byte), and 0xfd-prefixed SIMD ones (written as [0xfd, n]). */
const OPCODES: Record<string, number | [number, number]> = {
  unreachable: 0x00, nop: 0x01, return: 0x0f, drop: 0x1a, select: 0x1b,
  'i32.eqz': 0x45, 'i32.eq': 0x46, 'i32.ne': 0x47, 'i32.lt_s': 0x48, 'i32.lt_u': 0x49, 'i32.gt_s': 0x4a, 'i32.gt_u': 0x4b,
  'i32.le_s': 0x4c, 'i32.le_u': 0x4d, 'i32.ge_s': 0x4e, 'i32.ge_u': 0x4f,
  'f64.eq': 0x61, 'f64.ne': 0x62, 'f64.lt': 0x63, 'f64.gt': 0x64, 'f64.le': 0x65, 'f64.ge': 0x66,
  'i32.add': 0x6a, 'i32.sub': 0x6b, 'i32.mul': 0x6c, 'i32.div_s': 0x6d, 'i32.div_u': 0x6e, 'i32.rem_s': 0x6f, 'i32.rem_u': 0x70,
  'i32.and': 0x71, 'i32.or': 0x72, 'i32.xor': 0x73, 'i32.shl': 0x74, 'i32.shr_s': 0x75, 'i32.shr_u': 0x76,
  'f64.abs': 0x99, 'f64.neg': 0x9a, 'f64.ceil': 0x9b, 'f64.floor': 0x9c, 'f64.trunc': 0x9d, 'f64.nearest': 0x9e, 'f64.sqrt': 0x9f,
  'f64.add': 0xa0, 'f64.sub': 0xa1, 'f64.mul': 0xa2, 'f64.div': 0xa3, 'f64.min': 0xa4, 'f64.max': 0xa5,
  'f32.demote_f64': 0xb6, 'f64.convert_i32_s': 0xb7, 'f64.convert_i32_u': 0xb8, 'f64.promote_f32': 0xbb,
  'i32x4.extract_lane': [0xfd, 0x1b], 'i32x4.add': [0xfd, 0xae], 'i32x4.dot_i16x8_s': [0xfd, 0xba],
  'f64x2.add': [0xfd, 0xf0], 'f64x2.mul': [0xfd, 0xf2], 'f64x2.extract_lane': [0xfd, 0x21], 'f64x2.promote_low_f32x4': [0xfd, 0x5f],
};

/** Loads and stores: opcode and natural alignment (log2 of the bytes). */
const MEMORY_OPCODES: Record<string, [number | [number, number], number]> = {
  'i32.load': [0x28, 2], 'f32.load': [0x2a, 2], 'f64.load': [0x2b, 3], 'i32.load8_s': [0x2c, 0], 'i32.load8_u': [0x2d, 0],
  'i32.load16_s': [0x2e, 1], 'i32.load16_u': [0x2f, 1], 'i32.store': [0x36, 2], 'f32.store': [0x38, 2], 'f64.store': [0x39, 3],
  'i32.store8': [0x3a, 0], 'i32.store16': [0x3b, 1], 'v128.load': [[0xfd, 0x00], 4], 'v128.load8x8_s': [[0xfd, 0x01], 3],
  'v128.load64_zero': [[0xfd, 0x5d], 3], 'v128.store': [[0xfd, 0x0b], 4],
};

function parse(text: string): Sexp[] {
  const tokens = text
    .replace(/\(;[\s\S]*?;\)/g, ' ')
    .replace(/;;[^\n]*/g, ' ')
    .match(/"[^"]*"|\(|\)|[^\s()]+/g) ?? [];
  const stack: Sexp[][] = [[]];
  for (const token of tokens) {
    if (token === '(') stack.push([]);
    else if (token === ')') {
      const list = stack.pop() as Sexp[];
      (stack[stack.length - 1] as Sexp[]).push(list);
    } else (stack[stack.length - 1] as Sexp[]).push(token);
  }
  return stack[0] as Sexp[];
}

function unsigned(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

function signed(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    if ((value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

function bytesOf(name: string): number[] {
  const encoded = [...Buffer.from(name, 'utf8')];
  return [...unsigned(encoded.length), ...encoded];
}

function vector(items: number[][]): number[] {
  return [...unsigned(items.length), ...items.flat()];
}

function section(id: number, body: number[]): number[] {
  return [id, ...unsigned(body.length), ...body];
}

function float64(text: string): number[] {
  const value = text === 'inf' ? Infinity : text === '-inf' ? -Infinity : Number(text);
  if (Number.isNaN(value)) throw new Error(`f64.const: not a number: ${text}`);
  return [...new Uint8Array(new Float64Array([value]).buffer)];
}

function opcodeBytes(code: number | [number, number]): number[] {
  return typeof code === 'number' ? [code] : [code[0], ...unsigned(code[1])];
}

interface FunctionInfo {
  name: string | null;
  exportName: string | null;
  params: { name: string | null; type: string }[];
  results: string[];
  locals: { name: string | null; type: string }[];
  body: Sexp[];
}

/** Assembles the text of one module (the subset described above) into its binary. */
export function assembleWat(text: string): Uint8Array {
  const [module] = parse(text);
  if (!Array.isArray(module) || module[0] !== 'module') throw new Error('expected (module ...)');
  const memories: { exportName: string | null; min: number }[] = [];
  const functions: FunctionInfo[] = [];
  const exports: { name: string; kind: number; index: number }[] = [];
  for (const field of module.slice(1)) {
    if (!Array.isArray(field)) throw new Error(`unexpected ${field}`);
    if (field[0] === 'memory') {
      let exportName: string | null = null;
      let min = 0;
      for (const part of field.slice(1)) {
        if (Array.isArray(part) && part[0] === 'export') exportName = JSON.parse(part[1] as string) as string;
        else if (typeof part === 'string') min = Number(part);
      }
      if (exportName !== null) exports.push({ name: exportName, kind: 2, index: memories.length });
      memories.push({ exportName, min });
    } else if (field[0] === 'func') {
      const info: FunctionInfo = { name: null, exportName: null, params: [], results: [], locals: [], body: [] };
      let at = 1;
      if (typeof field[1] === 'string' && field[1].startsWith('$')) {
        info.name = field[1];
        at = 2;
      }
      for (; at < field.length; at++) {
        const part = field[at] as Sexp;
        if (!Array.isArray(part) || !['export', 'param', 'result', 'local'].includes(part[0] as string)) break;
        const [head, ...rest] = part as string[];
        if (head === 'export') info.exportName = JSON.parse(rest[0] as string) as string;
        else if (head === 'result') info.results.push(...rest);
        else {
          const list = head === 'param' ? info.params : info.locals;
          if (rest[0]?.startsWith('$') === true) list.push({ name: rest[0], type: rest[1] as string });
          else for (const type of rest) list.push({ name: null, type });
        }
      }
      info.body = field.slice(at);
      if (info.exportName !== null) exports.push({ name: info.exportName, kind: 0, index: functions.length });
      functions.push(info);
    } else throw new Error(`unsupported module field ${String(field[0])}`);
  }
  const types: string[] = [];
  const typeIndex = functions.map((info) => {
    const key = `${info.params.map((param) => param.type).join(' ')}->${info.results.join(' ')}`;
    if (!types.includes(key)) types.push(key);
    return types.indexOf(key);
  });
  const typeSection = vector(
    types.map((key) => {
      const [params, results] = key.split('->').map((list) => (list === '' ? [] : list.split(' ')));
      return [0x60, ...vector((params ?? []).map((type) => [VALUE_TYPES[type] as number])), ...vector((results ?? []).map((type) => [VALUE_TYPES[type] as number]))];
    }),
  );
  const functionIndex = (name: string): number => {
    const index = functions.findIndex((info) => info.name === name);
    if (index < 0) throw new Error(`unknown function ${name}`);
    return index;
  };
  const codes = functions.map((info) => {
    const names = [...info.params, ...info.locals].map((local) => local.name);
    const localIndex = (name: string): number => {
      const index = name.startsWith('$') ? names.indexOf(name) : Number(name);
      if (index < 0 || Number.isNaN(index)) throw new Error(`unknown local ${name}`);
      return index;
    };
    const runs: number[][] = [];
    for (const local of info.locals) {
      const type = VALUE_TYPES[local.type] as number;
      const last = runs[runs.length - 1];
      if (last !== undefined && last[1] === type) (last[0] as number)++;
      else runs.push([1, type]);
    }
    const out: number[] = [];
    const labels: (string | null)[] = [];
    const depth = (label: string): number => {
      const index = label.startsWith('$') ? labels.lastIndexOf(label) : labels.length - 1 - Number(label);
      if (index < 0) throw new Error(`unknown label ${label}`);
      return labels.length - 1 - index;
    };
    const blockType = (parts: Sexp[]): { type: number; rest: Sexp[]; label: string | null } => {
      let label: string | null = null;
      let rest = parts;
      if (typeof rest[0] === 'string' && rest[0].startsWith('$')) {
        label = rest[0];
        rest = rest.slice(1);
      }
      let type = 0x40;
      const first = rest[0];
      if (Array.isArray(first) && first[0] === 'result') {
        type = VALUE_TYPES[first[1] as string] as number;
        rest = rest.slice(1);
      }
      return { type, rest, label };
    };
    const emit = (expression: Sexp): void => {
      if (!Array.isArray(expression)) throw new Error(`unfolded instruction ${expression}: write (${expression} ...)`);
      const [op, ...args] = expression as [string, ...Sexp[]];
      if (op === 'block' || op === 'loop') {
        const { type, rest, label } = blockType(args);
        out.push(op === 'block' ? 0x02 : 0x03, type);
        labels.push(label);
        rest.forEach(emit);
        labels.pop();
        out.push(0x0b);
        return;
      }
      if (op === 'if') {
        const { type, rest, label } = blockType(args);
        const conditions = rest.filter((part) => !(Array.isArray(part) && (part[0] === 'then' || part[0] === 'else')));
        conditions.forEach(emit);
        out.push(0x04, type);
        labels.push(label);
        for (const part of rest) {
          if (!Array.isArray(part) || (part[0] !== 'then' && part[0] !== 'else')) continue;
          if (part[0] === 'else') out.push(0x05);
          part.slice(1).forEach(emit);
        }
        labels.pop();
        out.push(0x0b);
        return;
      }
      const immediates = args.filter((arg) => typeof arg === 'string') as string[];
      for (const operand of args) if (Array.isArray(operand)) emit(operand);
      if (op === 'local.get' || op === 'local.set' || op === 'local.tee') out.push({ 'local.get': 0x20, 'local.set': 0x21, 'local.tee': 0x22 }[op], ...unsigned(localIndex(immediates[0] as string)));
      else if (op === 'br' || op === 'br_if') out.push(op === 'br' ? 0x0c : 0x0d, ...unsigned(depth(immediates[0] as string)));
      else if (op === 'call') out.push(0x10, ...unsigned(functionIndex(immediates[0] as string)));
      else if (op === 'i32.const') out.push(0x41, ...signed(Number(immediates[0])));
      else if (op === 'f64.const') out.push(0x44, ...float64(immediates[0] as string));
      else if (op === 'v128.const') {
        if (immediates[0] !== 'i32x4') throw new Error('v128.const: only i32x4 lanes');
        out.push(0xfd, 0x0c, ...new Uint8Array(new Int32Array(immediates.slice(1).map(Number)).buffer));
      } else if (op in MEMORY_OPCODES) {
        const [code, natural] = MEMORY_OPCODES[op] as [number | [number, number], number];
        let offset = 0;
        let align = natural;
        for (const immediate of immediates) {
          if (immediate.startsWith('offset=')) offset = Number(immediate.slice(7));
          else if (immediate.startsWith('align=')) align = Math.log2(Number(immediate.slice(6)));
        }
        out.push(...opcodeBytes(code), ...unsigned(align), ...unsigned(offset));
      } else if (op in OPCODES) {
        out.push(...opcodeBytes(OPCODES[op] as number | [number, number]));
        for (const lane of immediates) out.push(Number(lane));
      } else throw new Error(`unsupported instruction ${op}`);
    };
    info.body.forEach(emit);
    const body = [...vector(runs), ...out, 0x0b];
    return [...unsigned(body.length), ...body];
  });
  const binary = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, typeSection),
    ...section(3, vector(typeIndex.map((index) => unsigned(index)))),
    ...(memories.length === 0 ? [] : section(5, vector(memories.map((memory) => [0x00, ...unsigned(memory.min)])))),
    ...(exports.length === 0 ? [] : section(7, vector(exports.map((entry) => [...bytesOf(entry.name), entry.kind, ...unsigned(entry.index)])))),
    ...section(10, vector(codes)),
  ];
  return new Uint8Array(binary);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const path = process.argv[2];
  if (path === undefined) throw new Error('usage: node --import tsx scripts/assemble-wat.ts <file.wat>');
  process.stdout.write(`${Buffer.from(assembleWat(readFileSync(path, 'utf8'))).toString('base64')}\n`);
}
