;; The int8 scan kernels of the semantic arm (compiled into int8-dot-kernel.ts; see there).
;; scan(data, rows, stride, query, out): for each of `rows` rows of `stride` int8 values starting at `data`,
;; writes the exact integer dot product with the `stride` int16 values at `query` to the i32 at `out` + 4 * row.
;; `stride` is a multiple of 8; rows are padded with zeros.
;; bounds(...): the pass over the scan's dot products that picks the rows whose exact score can reach the top
;; `limit` (see QuantizedVectors.search, which documents each step; the JS fallback does the same).
(module
  (memory (export "memory") 1)
  (func (export "scan") (param $data i32) (param $rows i32) (param $stride i32) (param $query i32) (param $out i32)
    (local $end i32) (local $i i32) (local $wide i32) (local $acc v128) (local $high v128) (local $bytes v128) (local $words i32)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $rows) (i32.const 2))))
    ;; 16 columns a step (one load of 16 int8, both halves widened), then the last 8 when stride is an odd multiple of 8
    (local.set $wide (i32.and (local.get $stride) (i32.const -16)))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (local.set $high (v128.const i32x4 0 0 0 0))
        (local.set $i (i32.const 0))
        (block $pairs
          (br_if $pairs (i32.eqz (local.get $wide)))
          (loop $column
            (local.set $bytes (v128.load (i32.add (local.get $data) (local.get $i))))
            (local.set $words (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1))))
            (local.set $acc
              (i32x4.add (local.get $acc) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $bytes)) (v128.load (local.get $words)))))
            (local.set $high
              (i32x4.add (local.get $high) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $bytes)) (v128.load offset=16 (local.get $words)))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br_if $column (i32.lt_u (local.get $i) (local.get $wide)))))
        (if (i32.lt_u (local.get $i) (local.get $stride))
          (then
            (local.set $acc
              (i32x4.add (local.get $acc)
                (i32x4.dot_i16x8_s
                  (v128.load8x8_s (i32.add (local.get $data) (local.get $i)))
                  (v128.load (i32.add (local.get $query) (i32.shl (local.get $i) (i32.const 1)))))))))
        (local.set $acc (i32x4.add (local.get $acc) (local.get $high)))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $data (i32.add (local.get $data) (local.get $stride)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row))))
  (func (export "bounds")
    (param $rows i32) (param $dots i32) (param $scales i32) (param $errors i32) (param $norms i32) (param $eligible i32)
    (param $approximates i32) (param $keep i32) (param $candidates i32) (param $heap i32) (param $limit i32)
    (param $base f64) (param $step f64) (param $queryNorm f64) (param $queryError f64) (param $slack f64) (param $out i32)
    (result i32)
    (local $slot i32) (local $count i32) (local $scored i32) (local $size i32) (local $at i32) (local $child i32) (local $parent i32)
    (local $floor f64) (local $approximate f64) (local $error f64) (local $low f64)
    (local.set $floor (f64.const -inf))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $slot) (local.get $rows)))
        (if (i32.eq (i32.load8_u (i32.add (local.get $eligible) (local.get $slot))) (i32.const 1))
          (then
            ;; approximate = base + scale * step * dot, in that order
            (local.set $approximate
              (f64.add (local.get $base)
                (f64.mul
                  (f64.mul (f64.load (i32.add (local.get $scales) (i32.shl (local.get $slot) (i32.const 3)))) (local.get $step))
                  (f64.convert_i32_s (i32.load (i32.add (local.get $dots) (i32.shl (local.get $slot) (i32.const 2))))))))
            (if (local.get $keep)
              (then
                (f64.store (i32.add (local.get $approximates) (i32.shl (local.get $scored) (i32.const 3))) (local.get $approximate))
                (local.set $scored (i32.add (local.get $scored) (i32.const 1)))))
            ;; error = errorNorm * queryNorm + quantizedNorm * queryError + slack
            (local.set $error
              (f64.add
                (f64.add
                  (f64.mul (f64.load (i32.add (local.get $errors) (i32.shl (local.get $slot) (i32.const 3)))) (local.get $queryNorm))
                  (f64.mul (f64.load (i32.add (local.get $norms) (i32.shl (local.get $slot) (i32.const 3)))) (local.get $queryError)))
                (local.get $slack)))
            (if (i32.eqz (f64.lt (f64.add (local.get $approximate) (local.get $error)) (local.get $floor)))
              (then
                (i32.store (i32.add (local.get $candidates) (i32.shl (local.get $count) (i32.const 2))) (local.get $slot))
                (local.set $count (i32.add (local.get $count) (i32.const 1)))
                (local.set $low (f64.sub (local.get $approximate) (local.get $error)))
                (if (f64.gt (local.get $low) (local.get $floor))
                  (then
                    (if (i32.lt_u (local.get $size) (local.get $limit))
                      (then
                        ;; a min-heap of the best lower bounds: add at the end, sift up
                        (local.set $at (local.get $size))
                        (local.set $size (i32.add (local.get $size) (i32.const 1)))
                        (block $placed
                          (loop $up
                            (br_if $placed (i32.eqz (local.get $at)))
                            (local.set $parent (i32.shr_u (i32.sub (local.get $at) (i32.const 1)) (i32.const 1)))
                            (br_if $placed
                              (i32.eqz (f64.lt (local.get $low) (f64.load (i32.add (local.get $heap) (i32.shl (local.get $parent) (i32.const 3)))))))
                            (f64.store (i32.add (local.get $heap) (i32.shl (local.get $at) (i32.const 3)))
                              (f64.load (i32.add (local.get $heap) (i32.shl (local.get $parent) (i32.const 3)))))
                            (local.set $at (local.get $parent))
                            (br $up)))
                        (f64.store (i32.add (local.get $heap) (i32.shl (local.get $at) (i32.const 3))) (local.get $low))
                        (if (i32.eq (local.get $size) (local.get $limit))
                          (then (local.set $floor (f64.load (local.get $heap))))))
                      (else
                        ;; full: the new bound replaces the least one, sifted down
                        (local.set $at (i32.const 0))
                        (block $settled
                          (loop $down
                            (local.set $child (i32.add (i32.shl (local.get $at) (i32.const 1)) (i32.const 1)))
                            (br_if $settled (i32.ge_u (local.get $child) (local.get $size)))
                            (if (i32.lt_u (i32.add (local.get $child) (i32.const 1)) (local.get $size))
                              (then
                                (if (f64.lt (f64.load (i32.add (local.get $heap) (i32.shl (i32.add (local.get $child) (i32.const 1)) (i32.const 3))))
                                      (f64.load (i32.add (local.get $heap) (i32.shl (local.get $child) (i32.const 3)))))
                                  (then (local.set $child (i32.add (local.get $child) (i32.const 1)))))))
                            (br_if $settled
                              (i32.eqz (f64.lt (f64.load (i32.add (local.get $heap) (i32.shl (local.get $child) (i32.const 3)))) (local.get $low))))
                            (f64.store (i32.add (local.get $heap) (i32.shl (local.get $at) (i32.const 3)))
                              (f64.load (i32.add (local.get $heap) (i32.shl (local.get $child) (i32.const 3)))))
                            (local.set $at (local.get $child))
                            (br $down)))
                        (f64.store (i32.add (local.get $heap) (i32.shl (local.get $at) (i32.const 3))) (local.get $low))
                        (local.set $floor (f64.load (local.get $heap)))))))))))
        (local.set $slot (i32.add (local.get $slot) (i32.const 1)))
        (br $next)))
    (i32.store (local.get $out) (local.get $scored))
    (f64.store offset=8 (local.get $out) (local.get $floor))
    (local.get $count))
  ;; The running sums of `count` f64 scores at `scores`, continued from `sum` and `squares` (sum += score; squares
  ;; += score * score, in order: ScoreStatistics.addMany's operations), written to `out` and `out` + 8.
  (func (export "sums") (param $scores i32) (param $count i32) (param $sum f64) (param $squares f64) (param $out i32)
    (local $end i32) (local $score f64)
    (local.set $end (i32.add (local.get $scores) (i32.shl (local.get $count) (i32.const 3))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $scores) (local.get $end)))
        (local.set $score (f64.load (local.get $scores)))
        (local.set $sum (f64.add (local.get $sum) (local.get $score)))
        (local.set $squares (f64.add (local.get $squares) (f64.mul (local.get $score) (local.get $score))))
        (local.set $scores (i32.add (local.get $scores) (i32.const 8)))
        (br $next)))
    (f64.store (local.get $out) (local.get $sum))
    (f64.store offset=8 (local.get $out) (local.get $squares))))
