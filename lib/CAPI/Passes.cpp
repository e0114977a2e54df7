//===- Passes.cpp - Registration of fp8 passes from C ---------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8-c/Passes.h"

#include "fp8/Conversion/Passes.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Pipelines/Pipelines.h"

#include <mutex>

using namespace mlir;

// Registering a pipeline twice is an error in MLIR's registry; C clients
// (and Python modules imported twice) may well call these twice.

void fp8RegisterPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    fp8::registerFP8TransformsPasses();
    fp8::registerFP8ConversionPasses();
  });
}

void fp8RegisterPipelines() {
  static std::once_flag once;
  std::call_once(once, [] { fp8::registerFP8Pipelines(); });
}
