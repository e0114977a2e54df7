//===- Chip.h - The NVIDIA targets of fp8-mlir ------------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The chips the GPU lowerings target and what their FP8 tensor cores accept
// (docs/nvidia-isa.md): element formats, operand majorness, scale blocks.
// Graph passes (layout legalization) and the GPU pipeline share these facts.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_TARGET_CHIP_H
#define FP8_TARGET_CHIP_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace mlir::fp8 {

enum class Chip {
  /// Hopper: wgmma FP8 (E4M3/E5M2), K-major operands in shared memory.
  SM90a,
  /// Blackwell: tcgen05.mma kinds f8f6f4, mxf8f6f4 (E8M0 block32 scales) and
  /// mxf4nvf4 (E2M1 with E4M3 block16 or E8M0 block32 scales).
  SM100a,
};

/// `sm_90a` or `sm_100a`.
std::optional<Chip> parseChip(llvm::StringRef name);
llvm::StringRef getChipName(Chip chip);
inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os, Chip chip) {
  return os << getChipName(chip);
}
/// The accepted chip names, for diagnostics.
llvm::ArrayRef<llvm::StringRef> getChipNames();

/// A diagnostic for a chip name that is not a supported target, saying what
/// to use instead (an FP8-less chip, a missing `a` suffix, a typo).
std::string describeUnsupportedChip(llvm::StringRef name);

/// The tensor-core instruction family that multiplies FP8 on `chip`.
llvm::StringRef getMmaName(Chip chip);

/// Whether the tensor cores of `chip` multiply operands of `format`.
bool supportsFormat(Chip chip, Format format);

/// Whether the tensor cores of `chip` can read an operand of `format` stored
/// MN-major (M or N contiguous) in shared memory: never on sm_90a (wgmma
/// reads FP8 K-major only), for 8-bit and 6-bit formats on sm_100a (the
/// transpose bits of the tcgen05 instruction descriptor), not for E2M1
/// (kind::mxf4nvf4 has no transpose).
bool tensorCoresReadMNMajor(Chip chip, Format format);

/// What the GEMM kernels fp8-mlir generates for `chip` read, which is what
/// fp8-legalize-layout makes every fp8.scaled_matmul satisfy (the lowerings
/// work around nothing):
///
///   * sm_90a: A [M, K] and B [N, K], both K-major, e4m3 or e5m2, through
///     128-byte-swizzled TMA tiles; scales per tensor or per row (f32, in
///     the epilogue), or blocks along K of 32 or 128 (f32 or e8m0, A per
///     row, B per row or in square blocks).
///   * sm_100a: A and B K-major too (the transpose bits are not generated),
///     e4m3/e5m2 (kind::f8f6f4, kind::mxf8f6f4 with e8m0 scales every 32) or
///     e2m1 (kind::mxf4nvf4 with e4m3 scales every 16 and per-tensor f32
///     global scales); f32 scales per tensor or per row in the epilogue.
///
/// Whether those kernels read an operand of `format` stored MN-major:
/// never, on either chip.
bool kernelsReadMNMajor(Chip chip, Format format);

/// The K extent of one MMA instruction for operands of `format`: 32 for FP8
/// (wgmma k32, tcgen05 K = 32), 64 for E2M1 on sm_100a.
int64_t getMmaK(Chip chip, Format format);

} // namespace mlir::fp8

namespace llvm::cl {

/// Chip options of passes and pipelines (`chip=sm_100a`) hold a parsed Chip;
/// any other name is rejected when the option is parsed, with
/// describeUnsupportedChip's advice.
template <>
class parser<mlir::fp8::Chip> : public basic_parser<mlir::fp8::Chip> {
public:
  parser(Option &option) : basic_parser(option) {}

  bool parse(Option &option, StringRef argName, StringRef arg,
             mlir::fp8::Chip &value);
  StringRef getValueName() const override { return "chip"; }
  void printOptionDiff(const Option &option, mlir::fp8::Chip value,
                       const OptVal &defaultValue, size_t globalWidth) const;
  void anchor() override;
};

} // namespace llvm::cl

#endif // FP8_TARGET_CHIP_H
