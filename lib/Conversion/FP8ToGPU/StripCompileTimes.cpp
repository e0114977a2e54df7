//===- StripCompileTimes.cpp - Reproducible gpu.binary objects ------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8STRIPCOMPILETIMES
#include "fp8/Conversion/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;

/// `object` without its `...TimeInMs` properties; `object` itself when it has
/// none.
static gpu::ObjectAttr stripCompileTimes(gpu::ObjectAttr object) {
  DictionaryAttr properties = object.getProperties();
  if (!properties)
    return object;
  SmallVector<NamedAttribute> kept;
  for (NamedAttribute property : properties)
    if (!property.getName().getValue().ends_with("TimeInMs"))
      kept.push_back(property);
  if (kept.size() == properties.size())
    return object;
  MLIRContext *context = object.getContext();
  return gpu::ObjectAttr::get(
      context, object.getTarget(), object.getFormat(), object.getObject(),
      kept.empty() ? DictionaryAttr() : DictionaryAttr::get(context, kept),
      object.getKernels());
}

namespace {
struct FP8StripCompileTimesPass
    : fp8::impl::FP8StripCompileTimesBase<FP8StripCompileTimesPass> {
  void runOnOperation() override {
    getOperation()->walk([](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      for (Attribute object : binary.getObjects()) {
        auto gpuObject = dyn_cast<gpu::ObjectAttr>(object);
        objects.push_back(gpuObject ? stripCompileTimes(gpuObject) : object);
      }
      binary.setObjectsAttr(ArrayAttr::get(binary.getContext(), objects));
    });
  }
};
} // namespace
