//===- Tcgen05InstrDescriptor.h - tcgen05.mma idesc -------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The 32-bit instruction descriptor that tcgen05.mma (sm_100a) takes in a
// register: element formats, majorness, negation, sparsity, the M x N shape
// and, for the block-scaled kinds, the scale format and which byte of the
// tensor-memory scale words each MMA reads. Bit positions follow the PTX ISA
// 9.7.16.4.2 tables "Instruction descriptor format for .kind::tf32, .kind::f16,
// .kind::f8f6f4 and .kind::i8", "... for .kind::mxf8f6f4" and "... for
// .kind::mxf4 and .kind::mxf4nvf4"; legal shapes follow 9.7.16.2.1 "Various
// combinations of .kind and shapes", and scale rules 9.7.16.10.7 "Block
// Scaling for tcgen05.mma". The unit tests pin every field and document where
// docs/nvidia-isa.md and the PTX ISA differ.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_TARGET_TCGEN05INSTRDESCRIPTOR_H
#define FP8_TARGET_TCGEN05INSTRDESCRIPTOR_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::fp8 {

/// The tcgen05.mma kinds that multiply floats.
enum class Tcgen05Kind {
  /// `.kind::f8f6f4`: unscaled E4M3, E5M2, E2M3, E3M2 or E2M1 operands (A and
  /// B may differ), f32 or f16 accumulator, K = 32.
  F8F6F4,
  /// `.kind::mxf8f6f4.block_scale.block32`: the f8f6f4 formats with one UE8M0
  /// scale per 32 elements along K, f32 accumulator, K = 32.
  MXF8F6F4,
  /// `.kind::mxf4nvf4.block_scale.block16|block32`: E2M1 operands with one
  /// UE4M3 or UE8M0 scale per 16 elements (NVFP4 / MXFP4 at block 16), or
  /// one UE8M0 scale per 32 (MXFP4), f32 accumulator, K = 64.
  MXF4NVF4,
  /// `.kind::f16`: unscaled F16 or BF16 operands, f32 or f16 accumulator,
  /// K = 16.
  F16,
  /// `.kind::tf32`: unscaled TF32 operands (f32 in memory), f32
  /// accumulator, K = 8.
  TF32,
};

/// The operand type of kind::f16 (F16, BF16) and kind::tf32 (TF32).
enum class Tcgen05WideType { F16, BF16, TF32 };

/// The accumulator (matrix D) element type of kind::f8f6f4; the block-scaled
/// kinds accumulate in f32 only.
enum class Tcgen05AccType { F16, F32 };

/// The element format of the scale factors of a block-scaled kind.
enum class Tcgen05ScaleType { UE4M3, UE8M0 };

/// Bits 30-31 of the f8f6f4 descriptor: how far `tcgen05.mma.ws` may shift
/// while it tries to reuse B.
enum class Tcgen05MaxShift { None, Shift8, Shift16, Shift32 };

/// The fields of a tcgen05.mma instruction descriptor and the instruction
/// qualifiers its legality depends on. Fields a kind has no bits for are
/// ignored by encodeTcgen05InstrDescriptor; checkTcgen05InstrDescriptor
/// rejects values other than their defaults where they would be dropped.
struct Tcgen05InstrDescriptor {
  Tcgen05Kind kind = Tcgen05Kind::F8F6F4;
  /// `.cta_group::1` or `::2` (not encoded; it selects the legal shapes).
  unsigned ctaGroup = 1;
  /// The `.ws` (weight-stationary) form, kind::f8f6f4 only (not encoded).
  bool weightStationary = false;

  /// Element formats of A (M x K) and B (K x N), for the kinds that
  /// multiply 8-, 6- and 4-bit floats.
  Format aFormat = Format::E4M3;
  Format bFormat = Format::E4M3;
  /// kind::f16 and kind::tf32: the type of both operands, in the format
  /// fields (bits 7-9 and 10-12).
  Tcgen05WideType wideType = Tcgen05WideType::BF16;
  /// kind::f8f6f4 and kind::f16 (kind::tf32: f32 only), bits 4-5 (f16 = 0,
  /// f32 = 1).
  Tcgen05AccType accType = Tcgen05AccType::F32;
  /// Bits 15 and 16: the operand is MN-major (M or N contiguous) instead of
  /// K-major ("transpose" in the PTX ISA).
  bool aMNMajor = false;
  bool bMNMajor = false;
  /// Bits 13 and 14: negate A, negate B.
  bool negateA = false;
  bool negateB = false;
  /// Bit 2: structured sparsity of A (K doubles).
  bool sparse = false;
  /// kind::f8f6f4 only, bits 0-1: the sparsity selector (0-3), only with
  /// `sparse`.
  unsigned sparsitySelector = 0;
  /// Bit 3 of the f8f6f4 layout: saturate, meaningful for kind::i8 only and
  /// therefore always rejected here; it exists so tests can pin the bit.
  bool saturate = false;

  /// The MMA shape: M >> 4 in bits 24-28 (f8f6f4) or M >> 7 in bits 27-28
  /// (block-scaled kinds); N >> 3 in bits 17-22.
  unsigned m = 128;
  unsigned n = 128;

  /// Block-scaled kinds only, bit 23 (UE4M3 = 0, UE8M0 = 1).
  Tcgen05ScaleType scaleType = Tcgen05ScaleType::UE8M0;
  /// Block-scaled kinds only: elements per scale along K, 32 or (mxf4nvf4)
  /// 16. Not encoded: it picks the `.block32` / `.block16` qualifier.
  unsigned scaleBlock = 32;
  /// Block-scaled kinds only: the scale factor A id (bits 29-30) and B id
  /// (bits 4-5), the first byte of each 32-bit tensor-memory scale word that
  /// this MMA reads: 0-3 with block32 on mxf8f6f4 (one byte), 0 or 2 with
  /// block32 on mxf4nvf4 (two bytes), 0 with block16 (all four bytes).
  unsigned scaleFactorIdA = 0;
  unsigned scaleFactorIdB = 0;
  /// kind::mxf4nvf4 only, bit 31: dense K = 96 instead of 64 (sm_103a only).
  bool k96 = false;

  /// kind::f8f6f4 with `.ws` only, bits 30-31.
  Tcgen05MaxShift maxShift = Tcgen05MaxShift::None;
};

/// The PTX spelling of `kind` without the `.kind::` prefix: "f8f6f4",
/// "mxf8f6f4", "mxf4nvf4", "f16" or "tf32".
llvm::StringRef getTcgen05KindName(Tcgen05Kind kind);

/// Why `desc` is not a legal sm_100a tcgen05.mma, or std::nullopt when it is.
/// Checks, per kind and cta_group: the formats (mxf4nvf4 takes E2M1 only,
/// f16 takes F16 or BF16, tf32 TF32 with an f32 accumulator),
/// M (64 or 128 for f8f6f4 on cta_group::1, 128 for the block-scaled kinds,
/// 128 or 256 on cta_group::2, 32/64/128 with `.ws`), N (8..256 in steps of
/// 8 on cta_group::1, of 16 on cta_group::2 and for an MN-major 8-bit B,
/// of 32 for an MN-major 8-bit B on cta_group::2; 64/128/256 with `.ws`),
/// majorness (no MN-major operands in kind::mxf4nvf4, E2M1 always K-major as
/// tensorCoresReadMNMajor says), the scale type, block and ids, and fields the
/// kind or target lacks (f16 accumulator when block-scaled, saturate, max shift
/// without `.ws`, K = 96).
std::optional<std::string>
checkTcgen05InstrDescriptor(const Tcgen05InstrDescriptor &desc);

/// The 32-bit descriptor. `desc` should pass checkTcgen05InstrDescriptor;
/// each field is masked to its width and fields the kind has no bits for are
/// dropped.
uint32_t encodeTcgen05InstrDescriptor(const Tcgen05InstrDescriptor &desc);

/// The K extent of one MMA: 32 for f8f6f4 and mxf8f6f4, 64 (96 with `k96`)
/// for mxf4nvf4, 16 for f16, 8 for tf32 (32 bytes of K for all but
/// mxf4nvf4); twice that when `sparse` (A stores half of it).
unsigned getTcgen05MmaK(const Tcgen05InstrDescriptor &desc);

/// How many scale factors per row of A (and per column of B) one block-scaled
/// MMA reads from each tensor-memory word: dense K / scaleBlock, e.g. 1 for
/// mxf8f6f4, 2 for mxf4nvf4 block32, 4 for mxf4nvf4 block16; 0 for f8f6f4.
unsigned getTcgen05ScalesPerMma(const Tcgen05InstrDescriptor &desc);

} // namespace mlir::fp8

#endif // FP8_TARGET_TCGEN05INSTRDESCRIPTOR_H
