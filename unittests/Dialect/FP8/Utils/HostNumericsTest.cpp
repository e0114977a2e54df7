//===- HostNumericsTest.cpp - The range of pow2 decode scales -------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// pow2DecodeScalesFitE8M0 against the rule itself: for each format, margin
// and eps, the decode scales 1/s of amaxes across the whole f32 range (the
// ends and middle of every binade, the subnormals and the special values)
// are all E8M0 values exactly when the function says so.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Utils/HostNumerics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/bit.h"
#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <cstdint>

using namespace mlir::fp8;

namespace {

/// Amaxes over the whole f32 range.
llvm::SmallVector<float> getAmaxes() {
  llvm::SmallVector<float> amaxes{0.0f, INFINITY, NAN, FLT_MAX};
  for (uint32_t field = 0; field <= 254; ++field)
    for (uint32_t mantissa : {0x0u, 0x1u, 0x400000u, 0x7FFFFFu})
      amaxes.push_back(llvm::bit_cast<float>(field << 23 | mantissa));
  return amaxes;
}

TEST(HostNumericsTest, Pow2DecodeScalesFitE8M0) {
  llvm::SmallVector<float> amaxes = getAmaxes();
  for (Format format : {Format::E4M3, Format::E5M2, Format::E2M1}) {
    for (float eps : {0.0f, 1e-12f}) {
      for (int32_t margin = 0; margin <= 20; ++margin) {
        bool fits = true;
        for (float amax : amaxes) {
          float scale =
              host::f32Scale(ScaleRuleKind::Pow2, amax, format, margin, eps);
          fits &= host::isE8M0Value(host::reciprocal(scale));
        }
        EXPECT_EQ(host::pow2DecodeScalesFitE8M0(format, margin, eps), fits)
            << stringifyFormat(format).str() << " margin " << margin << " eps "
            << eps;
      }
    }
  }
}

TEST(HostNumericsTest, E8M0Values) {
  EXPECT_TRUE(host::isE8M0Value(1.0f));
  EXPECT_TRUE(host::isE8M0Value(std::ldexp(1.0f, -127)));
  EXPECT_TRUE(host::isE8M0Value(std::ldexp(1.0f, 127)));
  EXPECT_FALSE(host::isE8M0Value(std::ldexp(1.0f, -128)));
  EXPECT_FALSE(host::isE8M0Value(0.0f));
  EXPECT_FALSE(host::isE8M0Value(-1.0f));
  EXPECT_FALSE(host::isE8M0Value(1.5f));
  EXPECT_FALSE(host::isE8M0Value(INFINITY));
  EXPECT_FALSE(host::isE8M0Value(NAN));
}

TEST(HostNumericsTest, MaxE8M0Pow2Margin) {
  // fmax / FLT_MAX is 1.75 * 2^-120 for E4M3, 1.75 * 2^-113 for E5M2 and
  // 1.5 * 2^-126 for E2M1; each margin halves it, and it must stay normal.
  EXPECT_EQ(host::getMaxE8M0Pow2Margin(Format::E4M3), 6);
  EXPECT_EQ(host::getMaxE8M0Pow2Margin(Format::E5M2), 13);
  EXPECT_EQ(host::getMaxE8M0Pow2Margin(Format::E2M1), 0);
}

} // namespace
