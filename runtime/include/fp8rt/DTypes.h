//===- DTypes.h - Element type names of launch manifests --------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The one table of the element types a launch manifest names: the dtypes of
// buffers and the data types of TMA tensor maps, with their widths. The
// manifest reader, fp8-run and the runtime use it; runtime/python/fp8rt.py
// holds the same table for Python, and test/runtime/dtypes.test checks that
// the two agree. Header-only and dependency-free, so that any C++ that
// writes or reads manifests can include it.
//
//===----------------------------------------------------------------------===//

#ifndef FP8RT_DTYPES_H
#define FP8RT_DTYPES_H

#include <cstddef>
#include <string_view>

namespace fp8rt {

/// The element type of a buffer. Integers of any width from 1 to 64 bits
/// are one family, `iN`.
enum class DType { F32, BF16, F16, F8E4M3, F8E5M2, F8E8M0, F4E2M1, Int };

struct DTypeInfo {
  DType type;
  /// The name in the manifest.
  const char *name;
  /// Bits per element; f4e2m1 packs two per byte, low nibble first.
  int bits;
};

/// Every named buffer dtype, in the order runtime/README.md lists them.
inline constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "f32", 32},      {DType::BF16, "bf16", 16},
    {DType::F16, "f16", 16},      {DType::F8E4M3, "f8e4m3", 8},
    {DType::F8E5M2, "f8e5m2", 8}, {DType::F8E8M0, "f8e8m0", 8},
    {DType::F4E2M1, "f4e2m1", 4},
};

/// Integer buffer dtypes are `i1` to `i64`.
inline constexpr int kMaxIntBits = 64;

/// The data types a tensor map may have (those of cuTensorMapEncodeTiled
/// that the manifests use).
enum class TensorMapDType { UInt8, UInt16, UInt32, Int32, F16, BF16, F32 };

struct TensorMapDTypeInfo {
  TensorMapDType type;
  const char *name;
  int bytes;
};

inline constexpr TensorMapDTypeInfo kTensorMapDTypes[] = {
    {TensorMapDType::UInt8, "uint8", 1},
    {TensorMapDType::UInt16, "uint16", 2},
    {TensorMapDType::UInt32, "uint32", 4},
    {TensorMapDType::Int32, "int32", 4},
    {TensorMapDType::F16, "float16", 2},
    {TensorMapDType::BF16, "bfloat16", 2},
    {TensorMapDType::F32, "float32", 4},
};

/// The entry of `table` (of structs with a `name`) called `name`, or null.
template <typename Info, size_t N>
constexpr const Info *findByName(const Info (&table)[N],
                                 std::string_view name) {
  for (const Info &info : table)
    if (name == info.name)
      return &info;
  return nullptr;
}

/// The table entry of a named dtype, or null (also for `iN`).
constexpr const DTypeInfo *findDType(std::string_view name) {
  return findByName(kDTypes, name);
}

/// N for an integer dtype `iN` with N from 1 to 64 (no leading zero), else 0.
constexpr int getIntDTypeBits(std::string_view name) {
  if (name.size() < 2 || name.size() > 3 || name[0] != 'i' || name[1] == '0')
    return 0;
  int bits = 0;
  for (char c : name.substr(1)) {
    if (c < '0' || c > '9')
      return 0;
    bits = bits * 10 + (c - '0');
  }
  return bits <= kMaxIntBits ? bits : 0;
}

/// Bits per element of a buffer dtype, or 0 if the name is unknown.
constexpr int getElementBits(std::string_view name) {
  if (const DTypeInfo *info = findDType(name))
    return info->bits;
  return getIntDTypeBits(name);
}

/// The type of a buffer dtype that getElementBits knows.
constexpr DType getDType(std::string_view name) {
  const DTypeInfo *info = findDType(name);
  return info ? info->type : DType::Int;
}

/// The table entry of a tensor-map data type, or null.
constexpr const TensorMapDTypeInfo *findTensorMapDType(std::string_view name) {
  return findByName(kTensorMapDTypes, name);
}

/// Bytes per element of a tensor-map data type, or 0 if the name is unknown.
constexpr int getTensorMapElementBytes(std::string_view name) {
  const TensorMapDTypeInfo *info = findTensorMapDType(name);
  return info ? info->bytes : 0;
}

} // namespace fp8rt

#endif // FP8RT_DTYPES_H
