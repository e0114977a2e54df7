//===- AttrsTest.cpp - fp8 attribute helpers ------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/InitAll.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

class AttrsTest : public ::testing::Test {
protected:
  AttrsTest() {
    DialectRegistry registry;
    registerFP8Dialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  template <typename AttrT>
  AttrT parse(StringRef text) {
    return dyn_cast_if_present<AttrT>(parseAttribute(text, &ctx));
  }

  std::string print(Attribute attr) {
    std::string str;
    llvm::raw_string_ostream os(str);
    os << attr;
    return str;
  }

  MLIRContext ctx;
};

TEST_F(AttrsTest, GranularityParsePrint) {
  for (StringRef text : {"#fp8.granularity<tensor>", "#fp8.granularity<1x128>",
                         "#fp8.granularity<128x128>", "#fp8.granularity<1x*>",
                         "#fp8.granularity<*x1>", "#fp8.granularity<*x*>",
                         "#fp8.granularity<1x1x32>"}) {
    auto attr = parse<GranularityAttr>(text);
    ASSERT_TRUE(attr) << text.str();
    EXPECT_EQ(print(attr), text.str());
  }
  auto rowwise = parse<GranularityAttr>("#fp8.granularity<1x*>");
  EXPECT_EQ(rowwise.getBlock(), ArrayRef<int64_t>({1, GranularityAttr::kFull}));
  EXPECT_TRUE(parse<GranularityAttr>("#fp8.granularity<tensor>").isTensor());
}

TEST_F(AttrsTest, GranularityTransposed) {
  auto g = parse<GranularityAttr>("#fp8.granularity<1x32>");
  EXPECT_EQ(print(g.getTransposed(2)), "#fp8.granularity<32x1>");
  // A trailing-only block is padded before the swap.
  auto row = parse<GranularityAttr>("#fp8.granularity<*>");
  EXPECT_EQ(print(row.getTransposed(2)), "#fp8.granularity<*x1>");
  auto t = GranularityAttr::getTensor(&ctx);
  EXPECT_EQ(t.getTransposed(2), t);
  auto b = parse<GranularityAttr>("#fp8.granularity<1x16x32>");
  EXPECT_EQ(print(b.getTransposed(3)), "#fp8.granularity<1x32x16>");
}

TEST_F(AttrsTest, ScaleRuleDefaults) {
  auto rule =
      parse<ScaleRuleAttr>("#fp8.rule<pow2, margin = 2, eps = 1.0e-12>");
  ASSERT_TRUE(rule);
  EXPECT_EQ(rule.getKind(), ScaleRuleKind::Pow2);
  EXPECT_EQ(rule.getMargin(), 2);
  EXPECT_EQ(rule.getEps().convertToFloat(), 1.0e-12f);
  auto plain = ScaleRuleAttr::get(&ctx, ScaleRuleKind::E8M0RCeil);
  EXPECT_EQ(print(plain), "#fp8.rule<e8m0_rceil>");
}

TEST_F(AttrsTest, RecipeDefaultsAreElided) {
  auto recipe = RecipeAttr::get(&ctx, RecipeKind::DeepSeek);
  EXPECT_EQ(print(recipe), "#fp8.recipe<deepseek>");
  EXPECT_EQ(recipe.getHistory(), 1024);
  EXPECT_EQ(recipe.getPromote(), 4);
  auto custom = parse<RecipeAttr>(
      "#fp8.recipe<tensor_delayed, history = 16, zero_amax = skip>");
  ASSERT_TRUE(custom);
  EXPECT_EQ(custom.getHistory(), 16);
  EXPECT_EQ(custom.getZeroAmax(), ZeroAmaxPolicy::Skip);
  EXPECT_EQ(print(custom),
            "#fp8.recipe<tensor_delayed, history = 16, zero_amax = skip>");
}

TEST(VersionTest, VersionIsSet) {
  EXPECT_EQ(getVersion(), "0.1.0");
  EXPECT_FALSE(getRevision().empty());
}

} // namespace
