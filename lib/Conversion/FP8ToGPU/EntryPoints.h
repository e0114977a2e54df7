//===- EntryPoints.h - The functions convert-fp8-to-gpu compiles -*- C++
//-*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// convert-fp8-to-gpu compiles entry points: the functions its
// `entry-points` option names, or by default the public functions a host
// can launch. The functions an entry point calls are inlined into it before
// it is planned, so that one launch plan covers the whole call tree.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_LIB_CONVERSION_FP8TOGPU_ENTRYPOINTS_H
#define FP8_LIB_CONVERSION_FP8TOGPU_ENTRYPOINTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SetVector.h"

#include <string>

namespace mlir::fp8 {

/// The entry points of `module`: the functions `names` names, or, when it is
/// empty, every public function with a body, statically shaped tensor
/// arguments and at least one result, every result a statically shaped
/// tensor (the others get a remark saying why they are left alone). Fails
/// with an error for a name that is no such function, and when the default
/// finds nothing although functions are defined.
FailureOr<SmallVector<func::FuncOp>>
selectEntryPoints(ModuleOp module, ArrayRef<std::string> names);

/// Inlines into `entry` the bodies of the functions it calls, transitively,
/// and adds them to `inlined`. Fails with an error naming the callee when one
/// has no body, has more than one block, or calls itself back.
LogicalResult inlineCalls(func::FuncOp entry,
                          llvm::SetVector<func::FuncOp> &inlined);

/// Erases the functions of `inlined` that are private and no longer called.
void eraseUnusedCallees(ModuleOp module,
                        const llvm::SetVector<func::FuncOp> &inlined);

} // namespace mlir::fp8

#endif // FP8_LIB_CONVERSION_FP8TOGPU_ENTRYPOINTS_H
