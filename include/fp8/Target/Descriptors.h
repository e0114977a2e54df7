//===- Descriptors.h - Tensor-core operand descriptors ----------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Encoders of the 64-bit shared-memory matrix descriptors that wgmma (sm_90a)
// and tcgen05.mma / tcgen05.cp (sm_100a) read their operands through (PTX ISA
// 9.7.15.5.1.2 "Matrix Descriptor Format" for wgmma, 9.7.16.4.1 "Shared
// memory descriptor" for tcgen05). Kernel builders call them for the constant
// fields and add the run-time start address; unit tests pin every bit.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_TARGET_DESCRIPTORS_H
#define FP8_TARGET_DESCRIPTORS_H

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::fp8 {

/// Shared-memory swizzle of an operand tile.
enum class Swizzle {
  None,
  B128,
  B64,
  B32,
  /// tcgen05 only: 128-byte swizzle with 32-byte atomicity (code 1). Its atom
  /// is MN-major, and PTX allows MN-major operands under it for kind::tf32
  /// only, so no FP8/FP6/FP4 MMA kind can use it.
  B128Atom32B,
};

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
  /// tcgen05 only, bit 52 (leading-dimension stride mode): false = LBO is a
  /// byte offset relative to the start address, true = bits 16-29 hold the
  /// absolute byte address of the second K chunk. PTX ISA 9.7.16.4.1.1 makes
  /// the absolute mode an sm_103a feature; wgmma has no such bit.
  bool leadingByteAddressAbsolute = false;
};

/// The 14-bit field encoding of a byte address or offset: (x & 0x3FFFF) >> 4.
constexpr uint64_t encodeDescriptorField(uint32_t bytes) {
  return (bytes & 0x3FFFF) >> 4;
}

/// The wgmma (sm_90a) descriptor: start address in bits 0-13, LBO 16-29,
/// SBO 32-45, base offset 49-51, swizzle 62-63 (1 = 128B, 2 = 64B, 3 = 32B).
/// `desc` should pass checkWgmmaDescriptor: wgmma has neither
/// Swizzle::B128Atom32B (encoded as no swizzle) nor the absolute LBO mode
/// (ignored).
uint64_t encodeWgmmaDescriptor(const SmemDescriptor &desc);

/// Why `desc` cannot be a wgmma descriptor, or std::nullopt when it can:
/// start address, LBO and SBO must be 16-byte aligned and below 2^18 (the
/// 14-bit fields hold bits 4-17), the base offset must fit 3 bits, and the
/// tcgen05-only swizzle and LBO mode are rejected.
std::optional<std::string> checkWgmmaDescriptor(const SmemDescriptor &desc);

/// The tcgen05 (sm_100a) descriptor of PTX ISA 9.7.16.4.1: the wgmma fields
/// at the same places (start 0-13, LBO 16-29, SBO 32-45, base offset 49-51),
/// the fixed constant 0b001 in bits 46-48, the LBO mode in bit 52, zeros in
/// 53-60 and a 3-bit swizzle in 61-63 (0 none, 1 = 128B with 32B atoms,
/// 2 = 128B, 4 = 64B, 6 = 32B: the bit patterns of wgmma's 2-bit codes one
/// bit lower). The same descriptor describes the source of tcgen05.cp.
uint64_t encodeTcgen05Descriptor(const SmemDescriptor &desc);

/// Why `desc` cannot be an sm_100a tcgen05 descriptor, or std::nullopt: the
/// alignment and range rules of checkWgmmaDescriptor, and no absolute LBO
/// mode (sm_103a only; it would also need 128-byte swizzle, K-major and base
/// offset 0).
std::optional<std::string> checkTcgen05Descriptor(const SmemDescriptor &desc);

/// The base offset (bits 49-51) of a swizzled tile whose swizzle pattern
/// repeats from `patternStart` (a shared-memory byte address) rather than
/// from a multiple of the repeat (1024 B for 128B swizzle, 512 B for 64B,
/// 256 B for 32B): (patternStart >> 7) & 7, by PTX ISA 9.7.16.4.1.
constexpr uint32_t getDescriptorBaseOffset(uint32_t patternStart) {
  return (patternStart >> 7) & 0x7;
}

/// The descriptor of a K-major 8-bit operand tile with 128-byte rows (128
/// values of K) under 128-byte swizzle, as TMA writes it with
/// CU_TENSOR_MAP_SWIZZLE_128B: groups of 8 rows are 1024 bytes apart (SBO),
/// LBO unused (1). Add the tile's shared address >> 4 at run time, plus 2
/// per k32 step inside the swizzle atom (32 bytes).
uint64_t getKMajor128BSwizzleWgmmaDescriptor();

/// The descriptor of an MN-major 16-bit operand tile under 128-byte swizzle,
/// as TMA writes boxes of 64 elements of M or N (128 bytes) by the stage's
/// rows of K with CU_TENSOR_MAP_SWIZZLE_128B (CUTLASS's canonical MN-major
/// SW128 layout ((8, 8, m), (8, k)) : ((1, 8, LBO), (64, SBO)) in elements):
/// groups of 8 rows of K are 1024 bytes apart (SBO), and the 64-element
/// column groups of M or N `columnGroupBytes` apart (LBO: one box). Add the
/// tile's shared address >> 4 at run time, plus 128 per k16 step (16 rows
/// of 128 bytes). [D]: no GPU has run it.
uint64_t getMNMajor128BSwizzleWgmmaDescriptor(uint32_t columnGroupBytes);

/// The same tile for tcgen05.mma (sm_100a): SBO 1024, LBO 16 (unused), the
/// tcgen05 128-byte swizzle code and version bits. 8-bit operands advance 32
/// bytes (enc: +2) per K = 32 MMA, packed E2M1 operands 32 bytes per K = 64.
uint64_t getKMajor128BSwizzleTcgen05Descriptor();

} // namespace mlir::fp8

#endif // FP8_TARGET_DESCRIPTORS_H
