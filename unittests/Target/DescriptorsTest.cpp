//===- DescriptorsTest.cpp - Tensor-core descriptor encoders --------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Target/Descriptors.h"
#include "gtest/gtest.h"

using namespace mlir::fp8;

namespace {

TEST(WgmmaDescriptorTest, FieldPositions) {
  SmemDescriptor desc;
  desc.startAddress = 0x1230;
  EXPECT_EQ(encodeWgmmaDescriptor(desc), 0x123u);
  desc = {};
  desc.leadingByteOffset = 0x40;
  EXPECT_EQ(encodeWgmmaDescriptor(desc), uint64_t(0x4) << 16);
  desc = {};
  desc.strideByteOffset = 1024;
  EXPECT_EQ(encodeWgmmaDescriptor(desc), uint64_t(64) << 32);
  desc = {};
  desc.baseOffset = 5;
  EXPECT_EQ(encodeWgmmaDescriptor(desc), uint64_t(5) << 49);
  for (auto [swizzle, code] : {std::pair{Swizzle::None, 0}, {Swizzle::B128, 1},
                               {Swizzle::B64, 2}, {Swizzle::B32, 3}}) {
    desc = {};
    desc.swizzle = swizzle;
    EXPECT_EQ(encodeWgmmaDescriptor(desc), uint64_t(code) << 62);
  }
}

TEST(WgmmaDescriptorTest, AddressesWrapAt18Bits) {
  // enc(x) = (x & 0x3FFFF) >> 4: shared addresses fit 18 bits.
  EXPECT_EQ(encodeDescriptorField(0x3FFF0), 0x3FFFu);
  EXPECT_EQ(encodeDescriptorField(0x40010), 0x1u);
  EXPECT_EQ(encodeDescriptorField(0xF), 0x0u);
}

TEST(WgmmaDescriptorTest, KMajor128BSwizzle) {
  // SBO 1024 (64), LBO 16 (1), 128-byte swizzle (1 << 62): the descriptor of
  // TMA's SWIZZLE_128B tiles with 128-byte rows.
  EXPECT_EQ(getKMajor128BSwizzleWgmmaDescriptor(), 0x4000004000010000u);
}

TEST(Tcgen05DescriptorTest, VersionAndSwizzle) {
  SmemDescriptor desc;
  EXPECT_EQ(encodeTcgen05Descriptor(desc), uint64_t(1) << 46);
  for (auto [swizzle, code] : {std::pair{Swizzle::None, 0}, {Swizzle::B128, 2},
                               {Swizzle::B64, 4}, {Swizzle::B32, 6}}) {
    desc = {};
    desc.swizzle = swizzle;
    EXPECT_EQ(encodeTcgen05Descriptor(desc),
              uint64_t(1) << 46 | uint64_t(code) << 61);
  }
  desc = {};
  desc.startAddress = 0x400;
  desc.leadingByteOffset = 16;
  desc.strideByteOffset = 1024;
  desc.swizzle = Swizzle::B128;
  EXPECT_EQ(encodeTcgen05Descriptor(desc),
            0x40u | uint64_t(1) << 16 | uint64_t(64) << 32 | uint64_t(1) << 46 |
                uint64_t(2) << 61);
}

} // namespace
