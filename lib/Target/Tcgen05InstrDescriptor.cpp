//===- Tcgen05InstrDescriptor.cpp - tcgen05.mma instruction descriptor ----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Target/Tcgen05InstrDescriptor.h"

#include "fp8/Target/Chip.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// The 3-bit format code of kind::f8f6f4 and kind::mxf8f6f4.
uint32_t getF8F6F4Code(Format format) {
  switch (format) {
  case Format::E4M3:
    return 0;
  case Format::E5M2:
    return 1;
  case Format::E2M3:
    return 3;
  case Format::E3M2:
    return 4;
  case Format::E2M1:
    return 5;
  }
  llvm_unreachable("unknown format");
}

std::string getFormatName(Format format) {
  return stringifyFormat(format).upper();
}

bool isBlockScaled(Tcgen05Kind kind) {
  return kind == Tcgen05Kind::MXF8F6F4 || kind == Tcgen05Kind::MXF4NVF4;
}

/// Whether `kind` multiplies 16- or 32-bit operands (Tcgen05WideType).
bool isWide(Tcgen05Kind kind) {
  return kind == Tcgen05Kind::F16 || kind == Tcgen05Kind::TF32;
}

/// The 3-bit operand type code of kind::f16 and kind::tf32.
uint32_t getWideCode(Tcgen05WideType type) {
  switch (type) {
  case Tcgen05WideType::F16:
    return 0;
  case Tcgen05WideType::BF16:
    return 1;
  case Tcgen05WideType::TF32:
    return 2;
  }
  llvm_unreachable("unknown type");
}

/// K of one dense MMA; a sparse one covers twice as much of K.
unsigned getDenseK(const Tcgen05InstrDescriptor &desc) {
  switch (desc.kind) {
  case Tcgen05Kind::F8F6F4:
  case Tcgen05Kind::MXF8F6F4:
    return 32;
  case Tcgen05Kind::MXF4NVF4:
    return desc.k96 ? 96 : 64;
  case Tcgen05Kind::F16:
    return 16;
  case Tcgen05Kind::TF32:
    return 8;
  }
  llvm_unreachable("unknown tcgen05 kind");
}

/// `tcgen05.mma{.ws}.cta_group::G.kind::K`, for diagnostics.
std::string getInstrName(const Tcgen05InstrDescriptor &desc) {
  return ("tcgen05.mma" + llvm::StringRef(desc.weightStationary ? ".ws" : "") +
          ".cta_group::" + std::to_string(desc.ctaGroup) +
          ".kind::" + getTcgen05KindName(desc.kind))
      .str();
}

std::optional<std::string> checkShape(const Tcgen05InstrDescriptor &desc) {
  std::string instr = getInstrName(desc);
  auto badM = [&](llvm::StringRef legal) {
    return "M = " + std::to_string(desc.m) + " is not a shape of " + instr +
           (desc.sparse ? " (sparse)" : "") + ": M must be " + legal.str();
  };
  if (desc.weightStationary) {
    if (desc.m != 32 && desc.m != 64 && desc.m != 128)
      return badM("32, 64 or 128");
    bool legalN =
        desc.n == 64 || desc.n == 128 || (desc.n == 256 && !desc.sparse);
    if (!legalN)
      return "N = " + std::to_string(desc.n) + " is not a shape of " + instr +
             ": N must be " + (desc.sparse ? "64 or 128" : "64, 128 or 256") +
             (desc.sparse ? " when sparse" : "");
    return std::nullopt;
  }

  bool blockScaled = isBlockScaled(desc.kind);
  if (desc.ctaGroup == 1) {
    if (blockScaled && desc.m != 128)
      return badM("128");
    if (!blockScaled && desc.m != 64 && desc.m != 128)
      return badM("64 or 128");
  } else {
    if (blockScaled && desc.sparse && desc.m != 256)
      return badM("256");
    if (desc.m != 128 && desc.m != 256)
      return badM("128 or 256");
  }

  unsigned step = desc.ctaGroup == 1 ? 8 : 16;
  // PTX ISA "Various combinations of N shape with .cta_group qualifier for
  // 8bit transpose B": an MN-major 8-bit B doubles the step.
  bool eightBitB = !isWide(desc.kind) && (desc.bFormat == Format::E4M3 ||
                                          desc.bFormat == Format::E5M2);
  if (desc.bMNMajor && eightBitB)
    step *= 2;
  if (desc.n < step || desc.n > 256 || desc.n % step != 0)
    return "N = " + std::to_string(desc.n) + " is not a shape of " + instr +
           (desc.bMNMajor && eightBitB ? " with an MN-major 8-bit B" : "") +
           ": N must be a multiple of " + std::to_string(step) + " in " +
           std::to_string(step) + "..256";
  return std::nullopt;
}

std::optional<std::string> checkScales(const Tcgen05InstrDescriptor &desc) {
  std::string kindName = ("kind::" + getTcgen05KindName(desc.kind)).str();
  if (desc.accType != Tcgen05AccType::F32)
    return kindName + " accumulates in f32 only";
  if (desc.sparsitySelector != 0)
    return "bits 0-1 (sparsity selector) are reserved in " + kindName;
  if (desc.maxShift != Tcgen05MaxShift::None)
    return "bits 30-31 (max shift) are not a field of " + kindName;

  if (desc.kind == Tcgen05Kind::MXF8F6F4) {
    if (desc.scaleType != Tcgen05ScaleType::UE8M0)
      return kindName + " takes UE8M0 scales only";
    if (desc.scaleBlock != 32)
      return kindName + " scales blocks of 32 elements (.block32) only";
    if (desc.scaleFactorIdA > 3 || desc.scaleFactorIdB > 3)
      return "scale factor ids of " + kindName + " are 0-3";
    return std::nullopt;
  }

  if (desc.scaleBlock != 16 && desc.scaleBlock != 32)
    return kindName + " scales blocks of 16 or 32 elements, not " +
           std::to_string(desc.scaleBlock);
  if (desc.scaleType == Tcgen05ScaleType::UE4M3 && desc.scaleBlock != 16)
    return kindName + " takes UE4M3 scales with .block16 only";
  // block32 reads one aligned 2-byte half of each scale word, block16 the
  // whole word (PTX ISA 9.7.16.10.7.2).
  unsigned idStep = desc.scaleBlock == 32 ? 2 : 4;
  for (auto [id, name] :
       {std::pair{desc.scaleFactorIdA, "A"}, {desc.scaleFactorIdB, "B"}})
    if (id > 3 || id % idStep != 0)
      return std::string("scale factor ") + name + " id " + std::to_string(id) +
             " is illegal with .block" + std::to_string(desc.scaleBlock) +
             ": it must be " + (idStep == 2 ? "0 or 2" : "0");
  return std::nullopt;
}

} // namespace

llvm::StringRef mlir::fp8::getTcgen05KindName(Tcgen05Kind kind) {
  switch (kind) {
  case Tcgen05Kind::F8F6F4:
    return "f8f6f4";
  case Tcgen05Kind::MXF8F6F4:
    return "mxf8f6f4";
  case Tcgen05Kind::MXF4NVF4:
    return "mxf4nvf4";
  case Tcgen05Kind::F16:
    return "f16";
  case Tcgen05Kind::TF32:
    return "tf32";
  }
  llvm_unreachable("unknown tcgen05 kind");
}

std::optional<std::string>
mlir::fp8::checkTcgen05InstrDescriptor(const Tcgen05InstrDescriptor &desc) {
  if (desc.ctaGroup != 1 && desc.ctaGroup != 2)
    return "cta_group " + std::to_string(desc.ctaGroup) + " is not 1 or 2";
  std::string kindName = ("kind::" + getTcgen05KindName(desc.kind)).str();
  if (desc.weightStationary) {
    if (desc.kind != Tcgen05Kind::F8F6F4)
      return "tcgen05.mma.ws has no " + kindName;
    if (desc.ctaGroup != 1)
      return std::string("tcgen05.mma.ws has no cta_group::2");
  }
  if (desc.saturate)
    return std::string("saturate (bit 3) applies to kind::i8 only");
  if (desc.sparsitySelector != 0 && !desc.sparse)
    return std::string("a sparsity selector needs the sparse bit");

  if (desc.kind == Tcgen05Kind::MXF4NVF4) {
    if (desc.aFormat != Format::E2M1 || desc.bFormat != Format::E2M1)
      return kindName + " multiplies E2M1 operands only, not " +
             getFormatName(desc.aFormat) + " x " + getFormatName(desc.bFormat);
    if (desc.aMNMajor || desc.bMNMajor)
      return kindName + " has no transpose: A and B must be K-major";
    if (desc.k96)
      return std::string("K = 96 (bit 31) exists only on sm_103a, not on "
                         "sm_100a");
  } else if (desc.k96) {
    return "bit 31 (K = 96) is not a field of " + kindName;
  }
  if (desc.kind == Tcgen05Kind::F16 && desc.wideType == Tcgen05WideType::TF32)
    return kindName + " multiplies F16 or BF16 operands, not TF32";
  if (desc.kind == Tcgen05Kind::TF32) {
    if (desc.wideType != Tcgen05WideType::TF32)
      return kindName + " multiplies TF32 operands only";
    if (desc.accType != Tcgen05AccType::F32)
      return kindName + " accumulates in f32 only";
  }

  // The 16- and 32-bit kinds read either majorness.
  for (auto [format, mnMajor, name] :
       {std::tuple{desc.aFormat, desc.aMNMajor, "A"},
        {desc.bFormat, desc.bMNMajor, "B"}})
    if (mnMajor && !isWide(desc.kind) &&
        !tensorCoresReadMNMajor(Chip::SM100a, format))
      return getFormatName(format) + " operand " + name +
             " must be K-major on sm_100a";

  if (isBlockScaled(desc.kind)) {
    if (std::optional<std::string> problem = checkScales(desc))
      return problem;
  } else {
    if (desc.sparsitySelector > 3)
      return "sparsity selector " + std::to_string(desc.sparsitySelector) +
             " does not fit 2 bits";
    if (desc.maxShift != Tcgen05MaxShift::None && !desc.weightStationary)
      return std::string("max shift (bits 30-31) needs tcgen05.mma.ws");
    if (desc.scaleFactorIdA != 0 || desc.scaleFactorIdB != 0)
      return "scale factor ids are not fields of " + kindName;
  }
  return checkShape(desc);
}

uint32_t
mlir::fp8::encodeTcgen05InstrDescriptor(const Tcgen05InstrDescriptor &desc) {
  uint32_t bits = uint32_t(desc.sparse) << 2 | uint32_t(desc.negateA) << 13 |
                  uint32_t(desc.negateB) << 14 | uint32_t(desc.aMNMajor) << 15 |
                  uint32_t(desc.bMNMajor) << 16 | ((desc.n >> 3) & 0x3F) << 17;
  switch (desc.kind) {
  case Tcgen05Kind::F8F6F4:
  case Tcgen05Kind::F16:
  case Tcgen05Kind::TF32: {
    // One layout for the unscaled kinds; only the type codes differ.
    bool wide = isWide(desc.kind);
    uint32_t aCode =
        wide ? getWideCode(desc.wideType) : getF8F6F4Code(desc.aFormat);
    uint32_t bCode =
        wide ? getWideCode(desc.wideType) : getF8F6F4Code(desc.bFormat);
    return bits | (desc.sparsitySelector & 0x3) | uint32_t(desc.saturate) << 3 |
           uint32_t(desc.accType == Tcgen05AccType::F32) << 4 | aCode << 7 |
           bCode << 10 | ((desc.m >> 4) & 0x1F) << 24 |
           uint32_t(desc.maxShift) << 30;
  }
  case Tcgen05Kind::MXF8F6F4:
  case Tcgen05Kind::MXF4NVF4: {
    bool mxf4 = desc.kind == Tcgen05Kind::MXF4NVF4;
    // kind::mxf4nvf4 codes E2M1 as 1 in a 3-bit A field and a 2-bit B field.
    uint32_t aCode = mxf4 ? 1 : getF8F6F4Code(desc.aFormat);
    uint32_t bCode = mxf4 ? 1 : getF8F6F4Code(desc.bFormat);
    return bits | (desc.scaleFactorIdB & 0x3) << 4 | aCode << 7 | bCode << 10 |
           uint32_t(desc.scaleType == Tcgen05ScaleType::UE8M0) << 23 |
           ((desc.m >> 7) & 0x3) << 27 | (desc.scaleFactorIdA & 0x3) << 29 |
           uint32_t(mxf4 && desc.k96) << 31;
  }
  }
  llvm_unreachable("unknown tcgen05 kind");
}

unsigned mlir::fp8::getTcgen05MmaK(const Tcgen05InstrDescriptor &desc) {
  return desc.sparse ? 2 * getDenseK(desc) : getDenseK(desc);
}

unsigned mlir::fp8::getTcgen05ScalesPerMma(const Tcgen05InstrDescriptor &desc) {
  if (!isBlockScaled(desc.kind))
    return 0;
  // PTX ISA "Valid combinations of scale_vectorsize and shapes": a sparse
  // MMA reads as many scales per row as the dense one.
  return getDenseK(desc) / desc.scaleBlock;
}
