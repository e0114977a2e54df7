//===- InitAll.cpp - Register everything fp8-mlir offers ------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/InitAll.h"

#include "fp8/Conversion/Passes.h"
#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Pipelines/Pipelines.h"
#include "fp8/Version.inc"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

void fp8::registerFP8Dialects(DialectRegistry &registry) {
  registry.insert<fp8::FP8Dialect, arith::ArithDialect>();
}

void fp8::registerFP8Passes() {
  registerFP8TransformsPasses();
  registerFP8ConversionPasses();
  registerFP8Pipelines();
}

void fp8::registerAllDialectsAndExtensions(DialectRegistry &registry) {
  registerFP8Dialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

void fp8::registerAllPasses() {
  mlir::registerAllPasses();
  registerFP8Passes();
}

llvm::StringRef fp8::getVersion() { return FP8_MLIR_VERSION; }
llvm::StringRef fp8::getRevision() { return FP8_MLIR_REVISION; }

void fp8::printVersion(llvm::raw_ostream &os) {
  os << "fp8-mlir " << getVersion() << " (" << getRevision() << ")\n"
     << "  FP8 / MX / NVFP4 scaling as IR; built against MLIR "
     << LLVM_VERSION_STRING << "\n";
#ifndef NDEBUG
  os << "  fp8-mlir assertions are on.\n";
#endif
}
