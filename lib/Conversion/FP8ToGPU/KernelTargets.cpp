//===- KernelTargets.cpp - The kernel module's target and PTX version -----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// LLVM's NVPTX backend aborts ("Cannot select") on an instruction its target
// cannot express instead of diagnosing it. convert-fp8-to-gpu therefore
// checks the kernel module's target against every instruction its kernels
// use before anything reaches the backend.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;
using namespace mlir::fp8;

StringRef mlir::fp8::getPtxFeatures(Chip chip) {
  // wgmma needs PTX 8.0; tcgen05 with block32 and block16 scales needs 8.8.
  return chip == Chip::SM90a ? "+ptx80" : "+ptx88";
}

/// The PTX ISA version (88 for 8.8) that `target` compiles to: its +ptxNN
/// feature, else the NVPTX backend's default, the first version knowing the
/// chip (8.0 for sm_90a, 8.6 for sm_100a).
static unsigned getPtxVersion(NVVM::NVVMTargetAttr target) {
  unsigned version = 0;
  SmallVector<StringRef> features;
  target.getFeatures().split(features, ',', -1, /*KeepEmpty=*/false);
  for (StringRef feature : features) {
    feature = feature.trim();
    if (feature.consume_front("+ptx"))
      (void)feature.getAsInteger(10, version);
  }
  if (version)
    return version;
  return target.getChip().starts_with("sm_10") ? 86 : 80;
}

/// The PTX ISA version an NVVM op of our kernels needs, with its name, if it
/// needs more than the chip does: the block-scaled MMA qualifiers .block16
/// and .block32 came with PTX 8.8, tcgen05 with 8.6, wgmma and setmaxnreg
/// with 8.0.
static std::optional<std::pair<unsigned, std::string>>
getRequiredPtxVersion(Operation *op) {
  if (auto mma = dyn_cast<NVVM::Tcgen05MMABlockScaleOp>(op))
    if (mma.getBlockScale() != NVVM::Tcgen05MMABlockScale::DEFAULT)
      return std::make_pair(
          88u, ("tcgen05.mma.kind::" + stringifyEnum(mma.getKind()) +
                ".block_scale." + stringifyEnum(mma.getBlockScale()))
                   .str());
  StringRef name = op->getName().getStringRef();
  if (name.starts_with("nvvm.tcgen05"))
    return std::make_pair(86u, name.drop_front(5).str());
  if (isa<NVVM::WgmmaMmaAsyncOp, NVVM::SetMaxRegisterOp>(op))
    return std::make_pair(80u, name.drop_front(5).str());
  return std::nullopt;
}

LogicalResult mlir::fp8::checkKernelTargets(gpu::GPUModuleOp kernels,
                                            Chip chip) {
  std::optional<ArrayAttr> targets = kernels.getTargets();
  if (!targets)
    return success();
  for (Attribute attr : *targets) {
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(attr);
    if (!target)
      continue;
    if (target.getChip() != getChipName(chip))
      return kernels.emitError()
             << "convert-fp8-to-gpu: the kernel module targets "
             << target.getChip() << ", but the kernels are generated for "
             << getChipName(chip)
             << "; give the gpu.module the chip of the lowering";
    // Instructions of sm_100a alone (the backend cannot select them for
    // sm_90a either).
    if (chip != Chip::SM100a) {
      Operation *only = nullptr;
      kernels.walk([&](Operation *op) {
        if (isa<NVVM::ConvertF32x2ToF4x2Op>(op) ||
            op->getName().getStringRef().starts_with("nvvm.tcgen05")) {
          only = op;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
      if (only)
        return only->emitError()
               << "convert-fp8-to-gpu: " << only->getName()
               << " exists on sm_100a only, but the kernels are generated for "
               << getChipName(chip);
    }
    unsigned version = getPtxVersion(target);
    std::optional<std::pair<unsigned, std::string>> worst;
    kernels.walk([&](Operation *op) {
      std::optional<std::pair<unsigned, std::string>> needs =
          getRequiredPtxVersion(op);
      if (needs && needs->first > version &&
          (!worst || needs->first > worst->first))
        worst = needs;
    });
    if (worst)
      return kernels.emitError()
             << "convert-fp8-to-gpu: " << worst->second << " needs PTX ISA "
             << worst->first / 10 << "." << worst->first % 10
             << ", but the kernel module's target compiles to PTX "
             << version / 10 << "." << version % 10 << " (features \""
             << target.getFeatures()
             << "\"), where LLVM's NVPTX backend cannot select it; use "
                "features \"+ptx"
             << worst->first << "\" or higher (ptxas of CUDA 12.9 or later)";
  }
  return success();
}
