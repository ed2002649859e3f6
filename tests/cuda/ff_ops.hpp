#pragma once
// Host-callable elementwise field arithmetic on the GPU (plain C++: no CUDA types), for BLS12-381
// Fr and Fp. Arrays hold n elements of N little-endian 64-bit limbs each (Fr: 4, Fp: 6), laid out
// back to back exactly like an array of the host's ff::Field::Repr (`Field::mont()` limbs).
//
// Inputs and outputs are in Montgomery form, except to_mont's input and from_mont's output, which
// are canonical integers. Every input element must be < p; one that is not is reported as
// "cuda::fr_mul: a[17] is not < p" (checked on the GPU before the operation). Any CUDA failure
// (no driver, no device, out of memory, a kernel fault) throws splitprove::Error with the
// failing call and its file:line. The call is synchronous: it copies in, runs, and copies out.
#include <cstddef>
#include <cstdint>

namespace splitprove::cuda {

enum class FieldOp {
  add,        // a + b
  sub,        // a - b
  mul,        // a · b
  sqr,        // a^2        (b unused)
  neg,        // -a         (b unused)
  dbl,        // 2a         (b unused)
  to_mont,    // a·R mod p  (a canonical; b unused)
  from_mont,  // a·R^-1     (output canonical; b unused)
};

const char* field_op_name(FieldOp op);
bool field_op_is_unary(FieldOp op);

// out[i] = op(a[i], b[i]) for i < n. `b` may be null for unary ops; `out` may alias `a` or `b`.
void fr_apply(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out, size_t n);
void fp_apply(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* out, size_t n);

// out[i] = (a[i] == b[i]) ? 1 : 0, compared as field elements on the GPU.
void fr_eq(const uint64_t* a, const uint64_t* b, uint8_t* out, size_t n);
void fp_eq(const uint64_t* a, const uint64_t* b, uint8_t* out, size_t n);

}  // namespace splitprove::cuda
