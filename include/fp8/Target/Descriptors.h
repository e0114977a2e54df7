//===- Descriptors.h - Tensor-core operand descriptors ----------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Encoders of the 64-bit shared-memory matrix descriptors that wgmma (sm_90a)
// and tcgen05.mma (sm_100a) read their operands through (docs/nvidia-isa.md,
// PTX ISA 9.7.15.5.1.2). Kernel builders call them for the constant fields
// and add the run-time start address; unit tests pin every bit.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_TARGET_DESCRIPTORS_H
#define FP8_TARGET_DESCRIPTORS_H

#include <cstdint>

namespace mlir::fp8 {

/// Shared-memory swizzle of an operand tile.
enum class Swizzle { None, B128, B64, B32 };

/// The fields of a shared-memory matrix descriptor.
struct SmemDescriptor {
  /// Shared-memory byte address of the tile (or 0, to add at run time).
  uint32_t startAddress = 0;
  /// Leading and stride byte offsets.
  uint32_t leadingByteOffset = 0;
  uint32_t strideByteOffset = 0;
  /// Base offset (bits 49-51): 0 when the tile is aligned to the swizzle
  /// repeat (1024 bytes for 128-byte swizzle).
  uint32_t baseOffset = 0;
  Swizzle swizzle = Swizzle::None;
};

/// The 14-bit field encoding of a byte address or offset: (x & 0x3FFFF) >> 4.
constexpr uint64_t encodeDescriptorField(uint32_t bytes) {
  return (bytes & 0x3FFFF) >> 4;
}

/// The wgmma (sm_90a) descriptor: start address in bits 0-13, LBO 16-29,
/// SBO 32-45, base offset 49-51, swizzle 62-63 (1 = 128B, 2 = 64B, 3 = 32B).
uint64_t encodeWgmmaDescriptor(const SmemDescriptor &desc);

/// The tcgen05 (sm_100a) descriptor: the same fields, version 0b001 in bits
/// 46-48, LBO mode 0 (bit 52), swizzle in bits 61-63 (2 = 128B, 4 = 64B,
/// 6 = 32B).
uint64_t encodeTcgen05Descriptor(const SmemDescriptor &desc);

/// The descriptor of a K-major 8-bit operand tile with 128-byte rows (128
/// values of K) under 128-byte swizzle, as TMA writes it with
/// CU_TENSOR_MAP_SWIZZLE_128B: groups of 8 rows are 1024 bytes apart (SBO),
/// LBO unused (1). Add the tile's shared address >> 4 at run time, plus 2
/// per k32 step inside the swizzle atom (32 bytes).
uint64_t getKMajor128BSwizzleWgmmaDescriptor();

} // namespace mlir::fp8

#endif // FP8_TARGET_DESCRIPTORS_H
