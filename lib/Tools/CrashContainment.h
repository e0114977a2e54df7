//===- CrashContainment.h - Crashes become one diagnostic -------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// fp8-opt reports a crash, a fatal LLVM error or an exhausted allocation as
// one diagnostic that names what the driver was doing (parsing, which pass,
// printing), removes its output file and exits with status 1, instead of
// dying with a stack dump.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_LIB_TOOLS_CRASHCONTAINMENT_H
#define FP8_LIB_TOOLS_CRASHCONTAINMENT_H

#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;
class PassManager;

namespace fp8 {

/// Installs the crash signal handlers and the fatal-error and out-of-memory
/// handlers for the whole process, every thread included, and follows the
/// driver through the input chunks MlirOptMain makes from `registry`. Call it
/// after llvm::InitLLVM, whose crash handlers (the stack dump) it replaces.
/// `inputName` names the input in the diagnostics.
void installCrashContainment(StringRef inputName, DialectRegistry &registry);

/// Gives the calling thread a signal stack if it has none, so that a stack
/// overflow on it is reported too: the kernel cannot run a handler on the
/// exhausted stack.
void useAlternateSignalStack();

/// Records which pass runs on each thread, and when the pipeline ends and the
/// output is printed. Call it once `pm` holds all its passes.
void trackPassesForCrashes(PassManager &pm);

} // namespace fp8
} // namespace mlir

#endif // FP8_LIB_TOOLS_CRASHCONTAINMENT_H
