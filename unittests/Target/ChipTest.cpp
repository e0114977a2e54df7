//===- ChipTest.cpp - The facts of the supported chips --------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Target/Chip.h"
#include "gtest/gtest.h"

using namespace mlir::fp8;

namespace {

TEST(ChipTest, Names) {
  EXPECT_EQ(parseChip("sm_90a"), Chip::SM90a);
  EXPECT_EQ(parseChip("sm_100a"), Chip::SM100a);
  EXPECT_FALSE(parseChip("sm_90"));
  EXPECT_FALSE(parseChip("hopper"));
  EXPECT_EQ(getChipName(Chip::SM90a), "sm_90a");
  EXPECT_EQ(getChipName(Chip::SM100a), "sm_100a");
}

TEST(ChipTest, Formats) {
  EXPECT_TRUE(supportsFormat(Chip::SM90a, Format::E4M3));
  EXPECT_TRUE(supportsFormat(Chip::SM90a, Format::E5M2));
  EXPECT_FALSE(supportsFormat(Chip::SM90a, Format::E2M1));
  EXPECT_TRUE(supportsFormat(Chip::SM100a, Format::E2M1));
  EXPECT_FALSE(tensorCoresReadMNMajor(Chip::SM90a, Format::E4M3));
  EXPECT_TRUE(tensorCoresReadMNMajor(Chip::SM100a, Format::E4M3));
  EXPECT_FALSE(tensorCoresReadMNMajor(Chip::SM100a, Format::E2M1));
  // The generated GEMMs read K-major operands on both chips.
  EXPECT_FALSE(kernelsReadMNMajor(Chip::SM90a, Format::E4M3));
  EXPECT_FALSE(kernelsReadMNMajor(Chip::SM100a, Format::E4M3));
  EXPECT_EQ(getMmaK(Chip::SM90a, Format::E4M3), 32);
  EXPECT_EQ(getMmaK(Chip::SM100a, Format::E2M1), 64);
}

} // namespace
