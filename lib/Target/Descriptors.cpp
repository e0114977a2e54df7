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

} // namespace

uint64_t mlir::fp8::encodeWgmmaDescriptor(const SmemDescriptor &desc) {
  uint64_t swizzle = 0;
  switch (desc.swizzle) {
  case Swizzle::None:
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

uint64_t mlir::fp8::encodeTcgen05Descriptor(const SmemDescriptor &desc) {
  uint64_t swizzle = 0;
  switch (desc.swizzle) {
  case Swizzle::None:
    swizzle = 0;
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
  return commonFields(desc) | uint64_t(1) << 46 | swizzle << 61;
}

uint64_t mlir::fp8::getKMajor128BSwizzleWgmmaDescriptor() {
  SmemDescriptor desc;
  desc.leadingByteOffset = 16; // unused for swizzled K-major: encodes as 1
  desc.strideByteOffset = 1024;
  desc.swizzle = Swizzle::B128;
  return encodeWgmmaDescriptor(desc);
}
