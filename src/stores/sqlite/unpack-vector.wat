;; The packed-vector decoder (compiled into unpack-vector-kernel.ts; see there and packed-vector.ts, whose JS loop
;; it follows step for step and is tested against).
;; unpack(input, length, count, largest, out): decodes the `count` floats of the packed vector of `length` bytes at
;; `input` (tag, dimensions and largest exponent already read by the caller) into the `count` u32s at `out`, using
;; the 2,048-entry u16 DECODE table the caller wrote at offset 0 (symbol << 4 | code length). Bytes past the end
;; read as zeros. Returns the number of code-stream bits it used (the caller refuses a vector cut short with it).
(module
  (memory (export "memory") 1)
  (func (export "unpack") (param $input i32) (param $length i32) (param $count i32) (param $largest i32) (param $out i32)
    (result i32)
    (local $at i32) (local $start i32) (local $position i32) (local $end i32) (local $stop i32)
    (local $buffer i32) (local $filled i32) (local $entry i32) (local $symbol i32) (local $exponent i32)
    (local $used i32) (local $high i32)
    ;; at: sign and mantissa, 3 bytes a float, after the 4-byte header; start: the exponents' code stream after them
    (local.set $at (i32.add (local.get $input) (i32.const 4)))
    (local.set $start (i32.add (local.get $at) (i32.mul (local.get $count) (i32.const 3))))
    (local.set $position (local.get $start))
    (local.set $end (i32.add (local.get $input) (local.get $length)))
    (local.set $stop (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $out) (local.get $stop)))
        ;; a code and an escaped exponent take at most 19 bits
        (block $full
          (loop $refill
            (br_if $full (i32.ge_s (local.get $filled) (i32.const 19)))
            (if (i32.lt_u (local.get $position) (local.get $end))
              (then
                (local.set $buffer
                  (i32.or (local.get $buffer)
                    (i32.shl (i32.load8_u (local.get $position)) (local.get $filled))))))
            (local.set $position (i32.add (local.get $position) (i32.const 1)))
            (local.set $filled (i32.add (local.get $filled) (i32.const 8)))
            (br $refill)))
        (local.set $entry
          (i32.load16_u (i32.shl (i32.and (local.get $buffer) (i32.const 2047)) (i32.const 1))))
        (local.set $symbol (i32.shr_u (local.get $entry) (i32.const 4)))
        (local.set $exponent (i32.sub (local.get $largest) (local.get $symbol)))
        (local.set $used (i32.and (local.get $entry) (i32.const 15)))
        ;; ESCAPE (16): its code is 11 bits long, and the exponent's 8 bits follow it in the buffer
        (if (i32.eq (local.get $symbol) (i32.const 16))
          (then
            (local.set $exponent (i32.and (i32.shr_u (local.get $buffer) (i32.const 11)) (i32.const 255)))
            (local.set $used (i32.add (local.get $used) (i32.const 8)))))
        (local.set $buffer (i32.shr_u (local.get $buffer) (local.get $used)))
        (local.set $filled (i32.sub (local.get $filled) (local.get $used)))
        (local.set $high (i32.load8_u offset=2 (local.get $at)))
        (i32.store (local.get $out)
          (i32.or
            (i32.or
              (i32.shl (i32.and (local.get $high) (i32.const 128)) (i32.const 24))
              (i32.shl (local.get $exponent) (i32.const 23)))
            (i32.or
              (i32.shl (i32.and (local.get $high) (i32.const 127)) (i32.const 16))
              (i32.load16_u (local.get $at)))))
        (local.set $at (i32.add (local.get $at) (i32.const 3)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $next)))
    (i32.sub
      (i32.shl (i32.sub (local.get $position) (local.get $start)) (i32.const 3))
      (local.get $filled))))
