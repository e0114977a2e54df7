//===- LaunchPlan.h - The launch plans of GPU-lowered graphs ----*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// convert-fp8-to-gpu records, per lowered function, a plan in the module
// attribute `fp8.plans` (function name -> plan dictionary):
//
//   chip: "sm_90a"; kernel_module: the gpu.module / gpu.binary of the kernels
//   buffers: [{id, kind: input | output | temp | constant | state, type,
//              bytes, name (state: the ml_program global),
//              index (inputs and outputs), value (constants), pitch (rows
//              padded to 16 bytes: elements from row to row), layout
//              ("transposed": a matrix stored with its dimensions swapped,
//              the K-major copy an sm_100a GEMM reads; "tcgen05_scale_factors":
//              sm_100a block scales in the layout of Tcgen05ScaleLayout,
//              fp8/Target/ScaleFactorLayout.h)}]
//   launches: [{kind: "kernel", kernel, grid, block, cluster, shared_bytes,
//               persistent, params: [{kind: buffer, buffer} | {kind: i32,
//               value} | {kind: f32, value} | {kind: tensor_map, buffer,
//               dtype, dims, strides, box, swizzle}]}
//             | {kind: "fill", buffer, byte}
//             | {kind: "copy", from, to, bytes}]
//
// State buffers hold delayed-scaling state (ml_program globals): set from
// their initial value once, kept across runs of the plan.
//
// writeManifest serializes a plan as the JSON the runtime reads
// (runtime/README.md): tensor-map dims and boxes innermost first, strides
// in bytes for dims 1.., constants as separate binary files.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_CONVERSION_FP8TOGPU_LAUNCHPLAN_H
#define FP8_CONVERSION_FP8TOGPU_LAUNCHPLAN_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>

namespace mlir::fp8 {

/// The module attribute holding the plans.
constexpr llvm::StringLiteral kPlansAttr = "fp8.plans";

/// Writes `plan` (of function `name`) as JSON. Constant buffers are
/// referenced by file name; `writeConstant(id, bytes)` is called for each
/// and returns the file name it wrote (or empty on failure). `kernelFiles`
/// names the PTX (and cubin, if any) files holding the kernels.
LogicalResult
writeManifest(llvm::raw_ostream &os, llvm::StringRef name, DictionaryAttr plan,
              llvm::StringRef ptxFile, llvm::StringRef cubinFile,
              const std::function<std::string(int64_t, llvm::ArrayRef<char>)>
                  &writeConstant);

} // namespace mlir::fp8

#endif // FP8_CONVERSION_FP8TOGPU_LAUNCHPLAN_H
