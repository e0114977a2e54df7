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

bool mlir::fp8::tensorCoresReadMNMajor(Chip chip, Format format) {
  return chip == Chip::SM100a && format != Format::E2M1;
}

bool mlir::fp8::kernelsReadMNMajor(Chip chip, Format format) {
  // The sm_100a GEMM could read 8-bit operands MN-major through the
  // instruction descriptor's transpose bits; it does not set them yet.
  return false;
}

int64_t mlir::fp8::getMmaK(Chip chip, Format format) {
  return chip == Chip::SM100a && format == Format::E2M1 ? 64 : 32;
}

std::string mlir::fp8::describeUnsupportedChip(llvm::StringRef name) {
  std::string base = ("unsupported chip '" + name +
                      "': fp8-mlir targets sm_90a (Hopper, "
                      "wgmma) and sm_100a (Blackwell, tcgen05.mma)")
                         .str();
  unsigned version = 0;
  llvm::StringRef rest = name;
  if (!rest.consume_front("sm_") || rest.consumeInteger(10, version))
    return base + "; chips are named like sm_90a";
  if (rest.empty() &&
      (version == 90 || version == 100 || version == 101 || version == 103))
    return base +
           "; wgmma, setmaxnreg and tcgen05 exist only in the "
           "architecture-specific targets: use sm_" +
           std::to_string(version == 90 ? 90 : 100) + "a";
  if (version < 90)
    return base + "; sm_" + std::to_string(version) +
           " has no FP8 tensor-core GEMM instructions that fp8-mlir uses "
           "(wgmma needs sm_90a)";
  return base;
}

bool llvm::cl::parser<Chip>::parse(Option &option, StringRef argName,
                                   StringRef arg, Chip &value) {
  if (std::optional<Chip> chip = parseChip(arg)) {
    value = *chip;
    return false;
  }
  return option.error(describeUnsupportedChip(arg), argName);
}

void llvm::cl::parser<Chip>::printOptionDiff(const Option &option, Chip value,
                                             const OptVal &defaultValue,
                                             size_t globalWidth) const {
  printOptionName(option, globalWidth);
  llvm::outs() << "= " << getChipName(value) << " (default: ";
  if (defaultValue.hasValue())
    llvm::outs() << getChipName(defaultValue.getValue());
  else
    llvm::outs() << "*no default*";
  llvm::outs() << ")\n";
}

void llvm::cl::parser<Chip>::anchor() {}
