//===- InitAll.h - Register everything fp8-mlir offers ----------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Registration entry points for tools and for compilers that embed our
// dialect and passes. Definitions live in lib/InitAll.cpp so that including
// this header costs nothing.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_INITALL_H
#define FP8_INITALL_H

#include "llvm/ADT/StringRef.h"

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class DialectRegistry;

namespace fp8 {

/// Registers the fp8 dialect and the dialects our passes produce.
void registerFP8Dialects(DialectRegistry &registry);

/// Registers the fp8 passes and pipelines with the global pass registry.
void registerFP8Passes();

/// Registers what fp8-opt offers: the fp8 dialect and passes plus every
/// upstream dialect, extension and pass, and the LLVM IR translations and
/// NVVM target models that `gpu-module-to-binary` needs.
void registerAllDialectsAndExtensions(DialectRegistry &registry);
void registerAllPasses();

/// The project version ("0.1.0") and git revision of this build.
llvm::StringRef getVersion();
llvm::StringRef getRevision();

/// Prints the version block shown by `fp8-opt --version`.
void printVersion(llvm::raw_ostream &os);

} // namespace fp8
} // namespace mlir

#endif // FP8_INITALL_H
