//===- InputScreening.h - Input the upstream parser cannot take -*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The upstream MLIR 22 parser crashes on some malformed input, and builds
// one entry per element of a type for a few ops before it checks anything.
// Every entry point that parses text for a user (fp8-opt, the C API and the
// Python package on top of it) screens the text first.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_TOOLS_INPUTSCREENING_H
#define FP8_TOOLS_INPUTSCREENING_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class MemoryBuffer;
class Twine;
} // namespace llvm

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace mlir::fp8 {

/// The elements of one tensor or vector that the entry points materialize
/// for an op such as tensor.from_elements unless told otherwise.
constexpr uint64_t kDefaultMaxMaterializedElements = uint64_t(1) << 24;

struct ScreeningOptions {
  /// The most elements of a static type of an op whose parser or verifier
  /// builds one entry per element (0: no limit).
  uint64_t maxMaterializedElements = kDefaultMaxMaterializedElements;
  /// How a user raises that limit, for the diagnostic (such as a
  /// command-line option); empty when they cannot.
  StringRef limitOption;
};

/// Receives each problem found: where in the screened text it is, and what
/// is wrong.
using ScreeningErrorFn =
    llvm::function_ref<void(const char *where, const llvm::Twine &message)>;

/// Rejects, through `emitError`, textual input that the upstream parser
/// would crash on or that would make it allocate without bound:
///   - dense arrays of `index`;
///   - malformed integer lists of the custom forms of linalg.transpose
///     (`permutation`), linalg.broadcast and linalg.reduce (`dimensions`);
///   - the custom forms of linalg.batch_matmul and
///     linalg.batch_reduce_matmul with `index` elements;
///   - tensor.expand_shape with an empty reassociation group;
///   - ops whose parser or verifier builds one entry per element of a shaped
///     type (tensor.from_elements, vector.from_elements, vector.to_elements)
///     with a static type of more than `options.maxMaterializedElements`.
/// Bytecode passes unchecked. Stops at the first problem.
LogicalResult screenInput(StringRef text, const ScreeningOptions &options,
                          ScreeningErrorFn emitError);

/// screenInput on a file, its error printed to stderr at its line and
/// column, as the parser prints its own.
LogicalResult screenInput(const llvm::MemoryBuffer &buffer,
                          const ScreeningOptions &options);

/// screenInput on text to be parsed in `context` with locations naming
/// `sourceName`: the error goes to the context's diagnostic handlers at its
/// line and column.
LogicalResult screenInput(StringRef text, StringRef sourceName,
                          MLIRContext *context,
                          const ScreeningOptions &options);

} // namespace mlir::fp8

#endif // FP8_TOOLS_INPUTSCREENING_H
