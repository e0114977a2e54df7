//===- InputScreening.h - Input the upstream parser cannot take -*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_LIB_TOOLS_INPUTSCREENING_H
#define FP8_LIB_TOOLS_INPUTSCREENING_H

#include "mlir/Support/LLVM.h"

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlir::fp8 {

/// Rejects, with a diagnostic, textual input that the upstream MLIR 22 parser
/// would crash on or that would make it allocate without bound:
///   - dense arrays of `index`;
///   - malformed integer lists of the custom forms of linalg.transpose
///     (`permutation`), linalg.broadcast and linalg.reduce (`dimensions`);
///   - the custom forms of linalg.batch_matmul and
///     linalg.batch_reduce_matmul with `index` elements;
///   - ops whose parser or verifier builds one entry per element of a shaped
///     type (tensor.from_elements, vector.from_elements, vector.to_elements)
///     with a static type of more than `maxMaterializedElements` elements
///     (0: no limit).
/// Bytecode input passes unchecked.
LogicalResult screenInput(const llvm::MemoryBuffer &buffer,
                          uint64_t maxMaterializedElements);

} // namespace mlir::fp8

#endif // FP8_LIB_TOOLS_INPUTSCREENING_H
