//===- fp8-opt.cpp - The fp8-mlir optimizer driver ------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the fp8 dialect and passes. Registration lives in FP8InitAll so
// this file compiles in seconds.
//
//===----------------------------------------------------------------------===//

#include "fp8/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::fp8::registerAllDialectsAndExtensions(registry);
  mlir::fp8::registerAllPasses();
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { mlir::fp8::printVersion(os); });
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fp8-mlir optimizer driver\n", registry));
}
