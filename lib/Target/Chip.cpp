//===- Chip.cpp - The NVIDIA targets of fp8-mlir --------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Target/Chip.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::fp8;

static constexpr llvm::StringRef kChipNames[] = {"sm_90a", "sm_100a"};

std::optional<Chip> mlir::fp8::parseChip(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<Chip>>(name)
      .Case("sm_90a", Chip::SM90a)
      .Case("sm_100a", Chip::SM100a)
      .Default(std::nullopt);
}

llvm::StringRef mlir::fp8::getChipName(Chip chip) {
  return kChipNames[static_cast<int>(chip)];
}

llvm::ArrayRef<llvm::StringRef> mlir::fp8::getChipNames() { return kChipNames; }

llvm::StringRef mlir::fp8::getMmaName(Chip chip) {
  return chip == Chip::SM90a ? "wgmma" : "tcgen05.mma";
}

bool mlir::fp8::supportsFormat(Chip chip, Format format) {
  switch (format) {
  case Format::E4M3:
  case Format::E5M2:
    return true;
  case Format::E2M1:
  case Format::E2M3:
  case Format::E3M2:
    return chip == Chip::SM100a;
  }
  llvm_unreachable("unknown format");
}

bool mlir::fp8::allowsMNMajor(Chip chip, Format format) {
  return chip == Chip::SM100a && format != Format::E2M1;
}

int64_t mlir::fp8::getMmaK(Chip chip, Format format) {
  return chip == Chip::SM100a && format == Format::E2M1 ? 64 : 32;
}
