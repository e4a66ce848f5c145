;; The int8 scan kernel of the semantic arm (compiled into int8-dot-kernel.ts; see there).
;; scan(data, rows, stride, query, out): for each of `rows` rows of `stride` int8 values starting at `data`,
;; writes the exact integer dot product with the `stride` int16 values at `query` to the i32 at `out` + 4 * row.
;; `stride` is a multiple of 8; rows are padded with zeros.
(module
  (memory (export "memory") 1)
  (func (export "scan") (param $data i32) (param $rows i32) (param $stride i32) (param $query i32) (param $out i32)
    (local $end i32) (local $i i32) (local $acc v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $rows) (i32.const 2))))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (loop $column
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.dot_i16x8_s
                (v128.load8x8_s (i32.add (local.get $data) (local.get $i)))
                (v128.load (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))))
          (local.set $i (i32.add (local.get $i) (i32.const 8)))
          (br_if $column (i32.lt_u (local.get $i) (local.get $stride))))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $data (i32.add (local.get $data) (local.get $stride)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row)))))
