//===- EmulateNarrowFloats.cpp - Narrow-float arithmetic in f32 -----------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Dialect/FP8/Utils/SoftFloat.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8EMULATENARROWFLOATS
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

bool isNarrowFloat(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isBF16() || element.isF16() || isSoftFloatType(element);
}

/// Takes away the license to skip the rounding of `op` (an arith.extf or
/// arith.truncf) when it converts to or from a narrow float.
template <typename CastOp>
void keepRounding(CastOp op) {
  if (!isNarrowFloat(op.getIn().getType()) && !isNarrowFloat(op.getType()))
    return;
  std::optional<arith::FastMathFlags> flags = op.getFastmath();
  if (!flags)
    return;
  arith::FastMathFlags kept = *flags & ~arith::FastMathFlags::contract;
  // No attribute rather than an empty one: the LLVM lowering of f16
  // conversions would carry it over as an attribute of an unloaded dialect.
  if (kept == arith::FastMathFlags::none)
    op.removeFastmathAttr();
  else
    op.setFastmath(kept);
}

struct FP8EmulateNarrowFloatsPass
    : fp8::impl::FP8EmulateNarrowFloatsBase<FP8EmulateNarrowFloatsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    SmallVector<Type> narrow{b.getBF16Type(), b.getF16Type()};
    llvm::append_range(narrow, getSoftFloatTypes(ctx));

    TypeConverter converter;
    arith::populateEmulateUnsupportedFloatsConversions(converter, narrow,
                                                       b.getF32Type());
    RewritePatternSet patterns(ctx);
    arith::populateEmulateUnsupportedFloatsPatterns(patterns, converter);
    ConversionTarget target(*ctx);
    arith::populateEmulateUnsupportedFloatsLegality(target, converter);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();

    getOperation()->walk([](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op))
        keepRounding(ext);
      else if (auto trunc = dyn_cast<arith::TruncFOp>(op))
        keepRounding(trunc);
    });
  }
};

} // namespace
