;; The exact score of a neighbour-context vector (compiled into context-dot-kernel.ts; see there).
;; score(dims, weight, neighbours, lanes): with `dims` float32 values each at the byte offsets own = 0,
;; previous = stride, next = 2 * stride and query = 3 * stride (stride = dims * 4 rounded up to 16), makes the
;; context vector at 4 * stride as CorpusIndex.computeContext does (own, + weight * previous when bit 1 of
;; `neighbours` is set, + weight * next when bit 2 is, each sum stored as float32; then divided by its norm) and
;; returns its dot product with the query: in four lanes as dotProduct sums (lanes = 4) or in one (lanes = 1).
(module
  (memory (export "memory") 1)
  (func (export "score") (param $dims i32) (param $weight f64) (param $neighbours i32) (param $lanes i32) (result f64)
    (local $stride i32) (local $mixed i32) (local $i i32) (local $end i32) (local $from i32) (local $neighbour i32)
    (local $norm f64) (local $dot0 f64) (local $dot1 f64) (local $dot2 f64) (local $dot3 f64)
    (local.set $stride (i32.and (i32.add (i32.shl (local.get $dims) (i32.const 2)) (i32.const 15)) (i32.const -16)))
    (local.set $mixed (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $end (i32.shl (local.get $dims) (i32.const 2)))
    ;; mixed = own
    (local.set $i (i32.const 0))
    (block $copied
      (loop $copy
        (br_if $copied (i32.ge_u (local.get $i) (local.get $end)))
        (f32.store (i32.add (local.get $mixed) (local.get $i)) (f32.load (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $copy)))
    ;; mixed += weight * previous (neighbour 1), then mixed += weight * next (neighbour 2), each sum rounded to float32
    (local.set $neighbour (i32.const 1))
    (block $added
      (loop $each
        (br_if $added (i32.gt_u (local.get $neighbour) (i32.const 2)))
        (if (i32.and (local.get $neighbours) (local.get $neighbour))
          (then
            (local.set $from (i32.mul (local.get $stride) (local.get $neighbour)))
            (local.set $i (i32.const 0))
            (block $summed
              (loop $sum
                (br_if $summed (i32.ge_u (local.get $i) (local.get $end)))
                (f32.store (i32.add (local.get $mixed) (local.get $i))
                  (f32.demote_f64
                    (f64.add
                      (f64.promote_f32 (f32.load (i32.add (local.get $mixed) (local.get $i))))
                      (f64.mul (local.get $weight) (f64.promote_f32 (f32.load (i32.add (local.get $from) (local.get $i))))))))
                (local.set $i (i32.add (local.get $i) (i32.const 4)))
                (br $sum)))))
        (local.set $neighbour (i32.add (local.get $neighbour) (i32.const 1)))
        (br $each)))
    ;; norm = sqrt(sum of squares), in order; mixed /= norm when above 0
    (local.set $i (i32.const 0))
    (block $measured
      (loop $measure
        (br_if $measured (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $norm
          (f64.add (local.get $norm)
            (f64.mul
              (f64.promote_f32 (f32.load (i32.add (local.get $mixed) (local.get $i))))
              (f64.promote_f32 (f32.load (i32.add (local.get $mixed) (local.get $i)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $measure)))
    (local.set $norm (f64.sqrt (local.get $norm)))
    (if (f64.gt (local.get $norm) (f64.const 0))
      (then
        (local.set $i (i32.const 0))
        (block $scaled
          (loop $scale
            (br_if $scaled (i32.ge_u (local.get $i) (local.get $end)))
            (f32.store (i32.add (local.get $mixed) (local.get $i))
              (f32.demote_f64 (f64.div (f64.promote_f32 (f32.load (i32.add (local.get $mixed) (local.get $i)))) (local.get $norm))))
            (local.set $i (i32.add (local.get $i) (i32.const 4)))
            (br $scale)))))
    ;; the dot product with the query (at 3 * stride)
    (local.set $from (i32.mul (local.get $stride) (i32.const 3)))
    (local.set $i (i32.const 0))
    (if (i32.eq (local.get $lanes) (i32.const 4))
      (then
        (block $four
          (loop $quad
            (br_if $four (i32.gt_s (i32.add (local.get $i) (i32.const 12)) (i32.sub (local.get $end) (i32.const 4))))
            (local.set $dot0 (f64.add (local.get $dot0) (f64.mul
              (f64.promote_f32 (f32.load (i32.add (local.get $mixed) (local.get $i))))
              (f64.promote_f32 (f32.load (i32.add (local.get $from) (local.get $i)))))))
            (local.set $dot1 (f64.add (local.get $dot1) (f64.mul
              (f64.promote_f32 (f32.load offset=4 (i32.add (local.get $mixed) (local.get $i))))
              (f64.promote_f32 (f32.load offset=4 (i32.add (local.get $from) (local.get $i)))))))
            (local.set $dot2 (f64.add (local.get $dot2) (f64.mul
              (f64.promote_f32 (f32.load offset=8 (i32.add (local.get $mixed) (local.get $i))))
              (f64.promote_f32 (f32.load offset=8 (i32.add (local.get $from) (local.get $i)))))))
            (local.set $dot3 (f64.add (local.get $dot3) (f64.mul
              (f64.promote_f32 (f32.load offset=12 (i32.add (local.get $mixed) (local.get $i))))
              (f64.promote_f32 (f32.load offset=12 (i32.add (local.get $from) (local.get $i)))))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $quad)))))
    ;; the rest (everything with lanes = 1) into the first lane
    (block $rest
      (loop $one
        (br_if $rest (i32.ge_u (local.get $i) (local.get $end)))
        (local.set $dot0 (f64.add (local.get $dot0) (f64.mul
          (f64.promote_f32 (f32.load (i32.add (local.get $mixed) (local.get $i))))
          (f64.promote_f32 (f32.load (i32.add (local.get $from) (local.get $i)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $one)))
    (if (result f64) (i32.eq (local.get $lanes) (i32.const 4))
      (then (f64.add (f64.add (f64.add (local.get $dot0) (local.get $dot1)) (local.get $dot2)) (local.get $dot3)))
      (else (local.get $dot0)))))
