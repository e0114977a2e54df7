//===- FormatInfoTest.cpp - Format constants and shape arithmetic ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr Format kAllFormats[] = {Format::E4M3, Format::E5M2, Format::E2M1,
                                  Format::E2M3, Format::E3M2};

class FormatInfoTest : public ::testing::Test {
protected:
  MLIRContext ctx;
};

// The table must agree with LLVM's APFloat semantics of the builtin types,
// which are independent of our code.
TEST_F(FormatInfoTest, ConstantsMatchAPFloat) {
  for (Format format : kAllFormats) {
    SCOPED_TRACE(stringifyFormat(format).str());
    const FormatInfo &info = getFormatInfo(format);
    EXPECT_EQ(info.format, format);
    const llvm::fltSemantics &sem =
        getFormatType(&ctx, format).getFloatSemantics();
    EXPECT_EQ(info.mantissaBits + 1, llvm::APFloat::semanticsPrecision(sem));
    EXPECT_EQ(info.getBitWidth(), llvm::APFloat::getSizeInBits(sem));
    EXPECT_EQ(info.bias, 1 - llvm::APFloat::semanticsMinExponent(sem));
    EXPECT_EQ(info.maxFinite, llvm::APFloat::getLargest(sem).convertToFloat());
    EXPECT_EQ(info.emax, ilogb(llvm::APFloat::getLargest(sem)));
    EXPECT_EQ(info.hasInfinity, llvm::APFloat::semanticsHasInf(sem));
    EXPECT_EQ(info.hasNaN, llvm::APFloat::semanticsHasNaN(sem));
  }
}

TEST_F(FormatInfoTest, SpecValues) {
  // numerics.md section 1.
  EXPECT_EQ(getFormatInfo(Format::E4M3).maxFinite, 448.0f);
  EXPECT_EQ(getFormatInfo(Format::E5M2).maxFinite, 57344.0f);
  EXPECT_EQ(getFormatInfo(Format::E2M1).maxFinite, 6.0f);
  EXPECT_EQ(getFormatInfo(Format::E2M3).maxFinite, 7.5f);
  EXPECT_EQ(getFormatInfo(Format::E3M2).maxFinite, 28.0f);
  // emax_elem of the OCP MX floor rule.
  EXPECT_EQ(getFormatInfo(Format::E4M3).emax, 8);
  EXPECT_EQ(getFormatInfo(Format::E5M2).emax, 15);
  EXPECT_EQ(getFormatInfo(Format::E2M1).emax, 2);
  EXPECT_EQ(getFormatInfo(Format::E2M3).emax, 2);
  EXPECT_EQ(getFormatInfo(Format::E3M2).emax, 4);
}

TEST_F(FormatInfoTest, TypeRoundTrip) {
  for (Format format : kAllFormats)
    EXPECT_EQ(getFormat(getFormatType(&ctx, format)), format);
  EXPECT_FALSE(getFormat(Float32Type::get(&ctx)).has_value());
  EXPECT_FALSE(getFormat(Float8E8M0FNUType::get(&ctx)).has_value());
  EXPECT_FALSE(getFormat(Float8E4M3FNUZType::get(&ctx)).has_value());
}

using Shape = SmallVector<int64_t>;
constexpr int64_t kDyn = ShapedType::kDynamic;

TEST(GranularityShapeTest, Tensor) {
  EXPECT_EQ(getScaleShape({256, 512}, {}), Shape({1, 1}));
  EXPECT_EQ(getBlockShape({256, 512}, {}), Shape({256, 512}));
  EXPECT_EQ(getScaleShape({}, {}), Shape({}));
  EXPECT_EQ(getScaleShape({kDyn, 8}, {}), Shape({1, 1}));
}

TEST(GranularityShapeTest, Axiswise) {
  EXPECT_EQ(getScaleShape({256, 512}, {1, kFullExtent}), Shape({256, 1}));
  EXPECT_EQ(getScaleShape({256, 512}, {kFullExtent, 1}), Shape({1, 512}));
  // A trailing-only block: leading dims get extent 1.
  EXPECT_EQ(getScaleShape({4, 256, 512}, {kFullExtent}), Shape({4, 256, 1}));
  EXPECT_EQ(getBlockShape({4, 256, 512}, {kFullExtent}), Shape({1, 1, 512}));
}

TEST(GranularityShapeTest, BlocksAndRaggedEdges) {
  EXPECT_EQ(getScaleShape({256, 512}, {1, 128}), Shape({256, 4}));
  EXPECT_EQ(getScaleShape({256, 512}, {128, 128}), Shape({2, 4}));
  EXPECT_EQ(getScaleShape({100, 130}, {128, 128}), Shape({1, 2}));
  EXPECT_EQ(getScaleShape({3, 33}, {1, 32}), Shape({3, 2}));
  EXPECT_EQ(getScaleShape({65, 7}, {32, 1}), Shape({3, 7}));
  EXPECT_EQ(getScaleShape({0, 16}, {1, 16}), Shape({0, 1}));
  EXPECT_EQ(getScaleShape({2, 64, 96}, {16, 16}), Shape({2, 4, 6}));
}

TEST(GranularityShapeTest, DynamicDims) {
  EXPECT_EQ(getScaleShape({kDyn, 512}, {1, 128}), Shape({kDyn, 4}));
  EXPECT_EQ(getScaleShape({8, kDyn}, {1, 32}), Shape({8, kDyn}));
  EXPECT_EQ(getScaleShape({8, kDyn}, {1, kFullExtent}), Shape({8, 1}));
  EXPECT_EQ(getBlockShape({8, kDyn}, {1, kFullExtent}), Shape({1, kDyn}));
}

TEST(GranularityShapeTest, FormatShape) {
  EXPECT_EQ(formatShape({2, kDyn, 3}), "[2, ?, 3]");
  EXPECT_EQ(formatShape({}), "[]");
}

TEST_F(FormatInfoTest, RuleFormatLegality) {
  EXPECT_FALSE(checkRuleFormat(ScaleRuleKind::Ratio, Format::E4M3));
  EXPECT_FALSE(checkRuleFormat(ScaleRuleKind::E8M0RCeil, Format::E5M2));
  EXPECT_FALSE(checkRuleFormat(ScaleRuleKind::E8M0Floor, Format::E2M1));
  EXPECT_FALSE(checkRuleFormat(ScaleRuleKind::NVFP4, Format::E2M1));
  EXPECT_TRUE(checkRuleFormat(ScaleRuleKind::NVFP4, Format::E4M3));
  EXPECT_TRUE(checkRuleFormat(ScaleRuleKind::Static, Format::E4M3));
}

TEST_F(FormatInfoTest, RuleSignatures) {
  Type f32 = Float32Type::get(&ctx);
  EXPECT_EQ(getRuleSignature(&ctx, ScaleRuleKind::Ratio)->blockScaleType, f32);
  EXPECT_EQ(getRuleSignature(&ctx, ScaleRuleKind::Pow2)->blockScaleType, f32);
  EXPECT_EQ(getRuleSignature(&ctx, ScaleRuleKind::Pow2Bias)->blockScaleType,
            f32);
  EXPECT_TRUE(isa<Float8E8M0FNUType>(
      getRuleSignature(&ctx, ScaleRuleKind::E8M0RCeil)->blockScaleType));
  auto nvfp4 = getRuleSignature(&ctx, ScaleRuleKind::NVFP4);
  EXPECT_TRUE(isa<Float8E4M3FNType>(nvfp4->blockScaleType));
  EXPECT_TRUE(nvfp4->hasGlobalScale);
  EXPECT_FALSE(getRuleSignature(&ctx, ScaleRuleKind::Static).has_value());
}

TEST_F(FormatInfoTest, ScaleTypeLegality) {
  Type f32 = Float32Type::get(&ctx);
  Type e8m0 = Float8E8M0FNUType::get(&ctx);
  Type e4m3 = Float8E4M3FNType::get(&ctx);
  Type e2m1 = Float4E2M1FNType::get(&ctx);
  EXPECT_FALSE(checkScaleTypes(e4m3, f32, false));
  EXPECT_FALSE(checkScaleTypes(e4m3, e8m0, false));
  EXPECT_FALSE(checkScaleTypes(e2m1, e8m0, false));
  EXPECT_FALSE(checkScaleTypes(e2m1, e4m3, true));
  EXPECT_TRUE(checkScaleTypes(e2m1, e4m3, false)); // needs the global scale
  EXPECT_TRUE(checkScaleTypes(e4m3, e4m3, true));  // NVFP4 scales need e2m1
  EXPECT_TRUE(checkScaleTypes(e4m3, f32, true));   // global without NVFP4
  EXPECT_TRUE(checkScaleTypes(e4m3, Float16Type::get(&ctx), false));
}

} // namespace
