//===- PlanBuilder.cpp - Recording the launch plan of a function ----------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::fp8;

PlanBuilder::PlanBuilder(func::FuncOp func, gpu::GPUModuleOp kernels, Chip chip,
                         int64_t numSMs)
    : func(func), kernels(kernels), numSMs(numSMs) {
  plan.chip = chip;
  plan.kernelModule = kernels.getName().str();
}

bool PlanBuilder::takesWideSM90Tiles(Operation *op, int64_t batches, int64_t m,
                                     int64_t n, bool fp8,
                                     StringRef slowReason) const {
  if (n <= 128 || sm90Tiles == SM90Tiles::Narrow)
    return false;
  if (sm90Tiles == SM90Tiles::Wide)
    return true;
  if (!fp8)
    return false;
  double speedup = estimateSM90WideTileSpeedup(batches, m, n, numSMs);
  bool wide = speedup >= kSM90WideTileMinSpeedup && slowReason.empty();
  auto opts = getFP8GPURemarkOpts(op, "tiles");
  std::string slow = slowReason.empty() ? "" : (", but " + slowReason).str();
  std::string product = llvm::formatv("{0} x {1}", m, n).str();
  if (batches > 1)
    product = llvm::formatv("{0} x {1}", batches, product).str();
  auto text = remark::add(
      "{0} ({1} product) takes {2} tiles: 128 x 192 tiles estimated at "
      "{3:f2}x the speed of 128 x 128 ones on {4} multiprocessors{5} "
      "(sm90-tile-n=auto; 192 or 128 forces)",
      describeForRemarks(op), product, wide ? "128 x 192" : "128 x 128",
      speedup, numSMs, slow);
  if (wide)
    remark::passed(op->getLoc(), opts) << text;
  else
    remark::analysis(op->getLoc(), opts) << text;
  return wide;
}

std::string mlir::fp8::formatShapeTag(ArrayRef<int64_t> shape) {
  return llvm::join(
      llvm::map_range(shape, [](int64_t e) { return std::to_string(e); }), "x");
}

LLVM::LLVMFuncOp PlanBuilder::internKernel(LLVM::LLVMFuncOp kernel,
                                           StringRef prefix) {
  // The whole function, printed under the prefix's name.
  kernel.setSymName(prefix);
  std::string text;
  llvm::raw_string_ostream os(text);
  kernel->print(os, OpPrintingFlags().printGenericOpForm().useLocalScope());
  std::string name =
      llvm::formatv("{0}_{1:x-16}", prefix, llvm::xxh3_64bits(text)).str();
  if (auto existing = SymbolTable::lookupSymbolIn(
          kernels, StringAttr::get(getContext(), name))) {
    kernel.erase();
    return cast<LLVM::LLVMFuncOp>(existing);
  }
  kernel.setSymName(name);
  return kernel;
}

int64_t PlanBuilder::addBuffer(PlanBuffer::Kind kind, RankedTensorType type) {
  PlanBuffer buffer;
  buffer.id = plan.buffers.size();
  buffer.kind = kind;
  buffer.type = type;
  buffer.bytes =
      (type.getNumElements() * type.getElementTypeBitWidth() + 7) / 8;
  plan.buffers.push_back(std::move(buffer));
  return plan.buffers.back().id;
}

int64_t PlanBuilder::bufferOf(Value value) {
  auto it = buffers.find(value);
  if (it != buffers.end())
    return it->second;
  int64_t id = addBuffer(PlanBuffer::Kind::Temp,
                         cast<RankedTensorType>(value.getType()));
  buffers[value] = id;
  return id;
}

std::optional<KernelParamKind>
mlir::fp8::getParamKind(const LaunchParam &param) {
  if (std::holds_alternative<TensorMapParam>(param))
    return KernelParamKind::TensorMap;
  if (std::holds_alternative<BufferParam>(param))
    return KernelParamKind::Buffer;
  if (std::holds_alternative<I32Param>(param))
    return KernelParamKind::I32;
  return std::nullopt;
}

void PlanBuilder::addKernelLaunch(LLVM::LLVMFuncOp kernel,
                                  std::array<int64_t, 3> grid, int64_t threads,
                                  int64_t sharedBytes,
                                  SmallVector<LaunchParam> params,
                                  bool persistent,
                                  std::array<int64_t, 3> cluster) {
  KernelLaunch launch;
  launch.kernel = kernel.getName().str();
  launch.grid = grid;
  launch.cluster = cluster;
  launch.block = {threads, 1, 1};
  launch.sharedBytes = sharedBytes;
  launch.persistent = persistent;
  launch.params = std::move(params);
  plan.launches.push_back(std::move(launch));
}

TensorMapParam PlanBuilder::getTensorMap(int64_t buffer, int64_t rows,
                                         int64_t cols, int64_t boxRows,
                                         int64_t boxCols, int64_t bits,
                                         int64_t batches) const {
  auto bytes = [&](int64_t elements) { return (elements * bits + 7) / 8; };
  TensorMapParam map;
  map.buffer = buffer;
  map.element = TensorMapParam::Element::UInt8;
  map.dims = {bytes(cols), rows};
  map.strides = {bytes(getPitch(buffer, cols))};
  map.box = {bytes(boxCols), boxRows};
  map.swizzle = TensorMapParam::Swizzle::B128;
  if (batches > 1) {
    map.dims.push_back(batches);
    map.strides.push_back(rows * map.strides[0]);
    map.box.push_back(1);
  }
  return map;
}
