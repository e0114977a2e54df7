//===- Descriptors.cpp - Tensor-core operand descriptors ------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Target/Descriptors.h"

using namespace mlir::fp8;

namespace {

uint64_t commonFields(const SmemDescriptor &desc) {
  return encodeDescriptorField(desc.startAddress) |
         encodeDescriptorField(desc.leadingByteOffset) << 16 |
         encodeDescriptorField(desc.strideByteOffset) << 32 |
         uint64_t(desc.baseOffset & 0x7) << 49;
}

/// The rules both descriptor formats share: 14-bit fields that hold bits 4-17
/// of 16-byte aligned byte values, and a 3-bit base offset.
std::optional<std::string> checkCommonFields(const SmemDescriptor &desc) {
  for (auto [value, name] : {std::pair{desc.startAddress, "start address"},
                             {desc.leadingByteOffset, "leading byte offset"},
                             {desc.strideByteOffset, "stride byte offset"}}) {
    if (value % 16 != 0)
      return std::string(name) + " " + std::to_string(value) +
             " is not a multiple of 16 bytes";
    if (value >= (1u << 18))
      return std::string(name) + " " + std::to_string(value) +
             " does not fit the 18-bit shared-memory window of a descriptor";
  }
  if (desc.baseOffset > 7)
    return "base offset " + std::to_string(desc.baseOffset) +
           " does not fit 3 bits";
  return std::nullopt;
}

} // namespace

uint64_t mlir::fp8::encodeWgmmaDescriptor(const SmemDescriptor &desc) {
  uint64_t swizzle = 0;
  switch (desc.swizzle) {
  case Swizzle::None:
  case Swizzle::B128Atom32B: // not a wgmma mode: checkWgmmaDescriptor rejects
    swizzle = 0;
    break;
  case Swizzle::B128:
    swizzle = 1;
    break;
  case Swizzle::B64:
    swizzle = 2;
    break;
  case Swizzle::B32:
    swizzle = 3;
    break;
  }
  return commonFields(desc) | swizzle << 62;
}

std::optional<std::string>
mlir::fp8::checkWgmmaDescriptor(const SmemDescriptor &desc) {
  if (std::optional<std::string> problem = checkCommonFields(desc))
    return problem;
  if (desc.swizzle == Swizzle::B128Atom32B)
    return std::string("wgmma has no 128-byte swizzle with 32-byte atoms "
                       "(a tcgen05 mode)");
  if (desc.leadingByteAddressAbsolute)
    return std::string("wgmma has no absolute leading-byte-address mode "
                       "(a tcgen05 mode)");
  return std::nullopt;
}

uint64_t mlir::fp8::encodeTcgen05Descriptor(const SmemDescriptor &desc) {
  uint64_t swizzle = 0;
  switch (desc.swizzle) {
  case Swizzle::None:
    swizzle = 0;
    break;
  case Swizzle::B128Atom32B:
    swizzle = 1;
    break;
  case Swizzle::B128:
    swizzle = 2;
    break;
  case Swizzle::B64:
    swizzle = 4;
    break;
  case Swizzle::B32:
    swizzle = 6;
    break;
  }
  return commonFields(desc) | uint64_t(1) << 46 |
         uint64_t(desc.leadingByteAddressAbsolute) << 52 | swizzle << 61;
}

std::optional<std::string>
mlir::fp8::checkTcgen05Descriptor(const SmemDescriptor &desc) {
  if (std::optional<std::string> problem = checkCommonFields(desc))
    return problem;
  if (desc.leadingByteAddressAbsolute)
    return std::string("the absolute leading-byte-address mode (descriptor "
                       "bit 52) exists only on sm_103a, not on sm_100a");
  return std::nullopt;
}

/// A K-major tile with 128-byte rows under 128-byte swizzle, at address 0.
static SmemDescriptor getKMajor128BSwizzle() {
  SmemDescriptor desc;
  desc.leadingByteOffset = 16; // unused for swizzled K-major: encodes as 1
  desc.strideByteOffset = 1024;
  desc.swizzle = Swizzle::B128;
  return desc;
}

uint64_t mlir::fp8::getKMajor128BSwizzleWgmmaDescriptor() {
  return encodeWgmmaDescriptor(getKMajor128BSwizzle());
}

uint64_t
mlir::fp8::getMNMajor128BSwizzleWgmmaDescriptor(uint32_t columnGroupBytes) {
  SmemDescriptor desc;
  desc.leadingByteOffset = columnGroupBytes;
  desc.strideByteOffset = 1024;
  desc.swizzle = Swizzle::B128;
  return encodeWgmmaDescriptor(desc);
}

uint64_t mlir::fp8::getKMajor128BSwizzleTcgen05Descriptor() {
  return encodeTcgen05Descriptor(getKMajor128BSwizzle());
}
