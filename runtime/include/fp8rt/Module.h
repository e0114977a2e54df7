//===- Module.h - What a launch manifest needs to know of its kernels -----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Reads the kernel module a manifest names, without CUDA, for what the
// manifest checker compares against the launches: from the PTX, each
// `.entry`'s parameters, its `.maxntid` / `.reqntid`, and which pointer
// parameters its code stores through; from a cubin (an ELF file), the names
// of its functions. This is a reader of the PTX that LLVM's NVPTX backend
// writes, not a PTX parser: it understands declarations and instruction
// operands, not the instruction set.
//
//===----------------------------------------------------------------------===//

#ifndef FP8RT_MODULE_H
#define FP8RT_MODULE_H

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fp8rt {

/// One `.param` of a kernel entry.
struct PtxParam {
  /// The declaration as written, without the name ("`.u64 .ptr .global
  /// .align 1`", "`.align 64 .b8 [128]`"), for messages.
  std::string declaration;
  /// The type (".u64", ".b8", ...) and the bytes of the whole parameter
  /// (an array's included).
  std::string type;
  uint64_t bytes = 0;
  uint64_t align = 0;
  bool isArray = false;
  /// Whether the kernel's code stores, atomically updates or reduces
  /// through an address derived from this parameter (global or generic
  /// memory).
  bool stored = false;
};

/// One kernel (`.entry`) of a PTX module.
struct PtxKernel {
  std::string name;
  /// The line of the `.entry` directive (1-based).
  int line = 0;
  std::vector<PtxParam> params;
  /// `.maxntid` and `.reqntid` extents; missing dimensions are 1, all zero
  /// when the directive is absent.
  std::array<uint32_t, 3> maxntid = {0, 0, 0};
  std::array<uint32_t, 3> reqntid = {0, 0, 0};
};

struct PtxModule {
  /// `.target`'s first operand ("sm_90a") and `.version` ("8.0").
  std::string target;
  std::string version;
  std::vector<PtxKernel> kernels;

  /// The kernel called `name`, or null.
  const PtxKernel *find(std::string_view name) const;
};

/// Reads the declarations of PTX text. On failure returns false and sets
/// `error` to "line L: what is wrong".
bool parsePtx(std::string_view text, PtxModule &module, std::string &error);

/// The names of the function symbols of a cubin (a 64-bit little-endian
/// ELF file). On failure returns false and sets `error`.
bool readCubinFunctions(std::string_view image,
                        std::vector<std::string> &functions,
                        std::string &error);

} // namespace fp8rt

#endif // FP8RT_MODULE_H
