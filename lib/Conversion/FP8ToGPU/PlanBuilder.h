//===- PlanBuilder.h - Recording the launch plan of a function --*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// convert-fp8-to-gpu plans one function at a time: it walks the ops in
// order, gives every tensor a buffer and records the launches that compute
// it. PlanBuilder holds what that walk records (the LaunchPlan, the buffer
// of each value, the facts one op's planning leaves for a later op's); the
// planners of each op family (PlanGemm.cpp, PlanQuantize.cpp,
// PlanState.cpp, PlanElementwise.cpp, PlanReduction.cpp, PlanLayout.cpp,
// PlanContraction.cpp, PlanGroupState.cpp, PlanRows.cpp) use
// it and are declared at the end.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_LIB_CONVERSION_FP8TOGPU_PLANBUILDER_H
#define FP8_LIB_CONVERSION_FP8TOGPU_PLANBUILDER_H

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Conversion/FP8ToGPU/LaunchPlan.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Target/Chip.h"
#include "fp8/Target/ScaleFactorLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::fp8 {

/// The gpu.module holding the kernels of every plan of a module.
constexpr llvm::StringLiteral kKernelModuleName = "fp8_kernels";

/// How `param` is passed: nullopt for an argument no kernel takes (f32
/// values are read from buffers).
std::optional<KernelParamKind> getParamKind(const LaunchParam &param);

/// "128x512": a shape in kernel names.
std::string formatShapeTag(ArrayRef<int64_t> shape);

class PlanBuilder {
public:
  PlanBuilder(func::FuncOp func, gpu::GPUModuleOp kernels, Chip chip,
              int64_t numSMs);

  func::FuncOp getFunction() const { return func; }
  Chip getChip() const { return plan.chip; }
  int64_t getNumSMs() const { return numSMs; }
  MLIRContext *getContext() { return func.getContext(); }
  const LaunchPlan &getPlan() const { return plan; }
  LaunchPlan &getPlan() { return plan; }
  /// A builder at the end of the kernel module, where kernels are built.
  OpBuilder getKernelBuilder() {
    return OpBuilder::atBlockEnd(kernels.getBody());
  }
  /// Names `kernel`, just built, `prefix` and a digest of its body, so that
  /// equal kernels (of any function in the module) share a name; returns
  /// the kernel of that name that existed already, erasing `kernel`, or
  /// `kernel` renamed.
  LLVM::LLVMFuncOp internKernel(LLVM::LLVMFuncOp kernel, StringRef prefix);

  //===--------------------------------------------------------------------===//
  // Buffers
  //===--------------------------------------------------------------------===//

  /// Adds a buffer holding a tensor of `type` (bytes from its shape).
  int64_t addBuffer(PlanBuffer::Kind kind, RankedTensorType type);
  PlanBuffer &getBuffer(int64_t id) { return plan.buffers[id]; }
  /// The buffer of `value`, creating a temporary for an op result.
  int64_t bufferOf(Value value);
  /// The buffer of `value` if it has one already.
  std::optional<int64_t> lookupBuffer(Value value) const {
    auto it = buffers.find(value);
    if (it == buffers.end())
      return std::nullopt;
    return it->second;
  }
  /// Makes `value` a view of `buffer` (same bytes).
  void setBuffer(Value value, int64_t buffer) { buffers[value] = buffer; }
  /// Elements from one row of a [rows, cols] buffer to the next.
  int64_t getPitch(int64_t buffer, int64_t cols) const {
    return plan.buffers[buffer].pitch.value_or(cols);
  }

  //===--------------------------------------------------------------------===//
  // Launches
  //===--------------------------------------------------------------------===//

  void addFill(int64_t buffer, int64_t byte) {
    plan.launches.push_back(FillLaunch{buffer, byte});
  }
  void addCopy(int64_t from, int64_t to, int64_t bytes) {
    plan.launches.push_back(CopyLaunch{from, to, bytes});
  }
  /// Records a launch of `kernel` with the arguments `params`, in the order
  /// the kernel declares its parameters.
  void addKernelLaunch(LLVM::LLVMFuncOp kernel, std::array<int64_t, 3> grid,
                       int64_t threads, int64_t sharedBytes,
                       SmallVector<LaunchParam> params, bool persistent,
                       std::array<int64_t, 3> cluster = {1, 1, 1});
  /// Records a launch of `kernel`, built from `config`, with
  /// getKernelThreads(config) threads per block in clusters of
  /// getKernelCluster(config). Its arguments are
  /// `getArg(param)` for each of config.getParams(), in order: the list the
  /// kernel was declared from, so that the two cannot disagree.
  template <typename Config, typename GetArg>
  void addKernelLaunch(LLVM::LLVMFuncOp kernel, const Config &config,
                       std::array<int64_t, 3> grid, int64_t sharedBytes,
                       GetArg &&getArg, bool persistent) {
    SmallVector<LaunchParam> args;
    for (typename Config::Param param : config.getParams()) {
      args.push_back(getArg(param));
      assert(getParamKind(args.back()) == getParamKind(param) &&
             "a launch argument of another kind than its parameter");
    }
    addKernelLaunch(kernel, grid, getKernelThreads(config), sharedBytes,
                    std::move(args), persistent, getKernelCluster(config));
  }
  /// A 2-D TMA tensor map over an 8-bit [rows, cols] row-major buffer with
  /// boxes of [boxRows, boxCols] and 128-byte swizzle. Elements of `bits` <
  /// 8 (E2M1) are packed: the map is over bytes. With `batches` > 1 the
  /// buffer holds [batches, rows, cols] and the map is 3-D, with boxes of
  /// one matrix: a box past a matrix's edge reads zeros, not the next one.
  TensorMapParam getTensorMap(int64_t buffer, int64_t rows, int64_t cols,
                              int64_t boxRows, int64_t boxCols,
                              int64_t bits = 8, int64_t batches = 1) const;

  //===--------------------------------------------------------------------===//
  // What one op's planning leaves for later ops
  //===--------------------------------------------------------------------===//

  /// Transposes whose results a quantization stored (cast+transpose): no
  /// launch of their own.
  llvm::DenseSet<Operation *> foldedTransposes;
  /// Single-element tensors that are 1 / another buffer's element.
  llvm::DenseMap<Value, int64_t> reciprocals;
  /// Scalars read from single-element buffers.
  llvm::DenseMap<Value, int64_t> scalarSources;
  /// sm_100a: scale buffers written in the layout of Tcgen05ScaleLayout.
  llvm::DenseMap<int64_t, Tcgen05ScaleLayout> tcgen05ScaleBuffers;
  /// Input buffers whose block scales the caller passes in the tcgen05
  /// layout (the argument's `fp8.scale_layout`): their layout joins
  /// tcgen05ScaleBuffers when the first GEMM reading them is planned.
  llvm::DenseMap<int64_t, Tcgen05ScaleLayoutAttr> tcgen05InputScales;
  /// The state buffer of each ml_program global.
  llvm::StringMap<int64_t> states;
  /// fp8.expand_quantize ops that the kernel of the step computing their
  /// input writes (PlanGroupState.cpp).
  llvm::DenseSet<Operation *> foldedGroupOps;
  /// Elementwise kernels generated so far in this function.
  int64_t elementwiseCount = 0;
  /// Compute the elementwise producers of quantizations in the quantize
  /// kernels (convert-fp8-to-gpu's `fuse-prologues`).
  bool fusePrologues = true;
  /// Columns of the sm_90a GEMMs' output tiles where their scaling allows
  /// (convert-fp8-to-gpu's `sm90-tile-n`).
  enum class SM90Tiles { Auto, Narrow, Wide };
  SM90Tiles sm90Tiles = SM90Tiles::Auto;
  /// Whether the sm_90a GEMM `op` of `batches` products of `m` x `n`, whose
  /// scaling allows it, takes tiles of 192 columns: never where N <= 128;
  /// always with sm90-tile-n=192, never with 128; by default (auto) the FP8
  /// GEMMs whose estimated speed-up (estimateSM90WideTileSpeedup) reaches
  /// kSM90WideTileMinSpeedup, unless `slowReason` says why the GEMM is slow
  /// with them (an H100 ran it so), and no high-precision GEMM (`fp8` false:
  /// no GPU has timed their wide tiles). Remarks on each automatic choice.
  bool takesWideSM90Tiles(Operation *op, int64_t batches, int64_t m, int64_t n,
                          bool fp8, StringRef slowReason = {}) const;
  /// Stage the same-shape inputs of sm_90a GEMM epilogues in shared memory
  /// where they can be (convert-fp8-to-gpu's `stage-epilogue-inputs`).
  bool stageEpilogueInputs = true;
  /// Run transcendental sm_90a GEMM epilogues in a warpgroup of their own
  /// (convert-fp8-to-gpu's `sm90-epilogue-warpgroup`).
  bool sm90EpilogueWarpgroup = false;
  /// Let sm_90a high-precision GEMMs read MN-major 16-bit operands where
  /// they are (convert-fp8-to-gpu's `sm90-mn-major-operands`).
  bool sm90MNMajorOperands = true;
  /// Let sm_90a GEMMs store results that attention splits into heads
  /// head-major (convert-fp8-to-gpu's `sm90-head-major-results`).
  bool sm90HeadMajorResults = true;
  /// Let sm_90a GEMMs store their results by TMA from shared memory
  /// (convert-fp8-to-gpu's `sm90-tma-store`).
  bool sm90TmaStore = true;
  /// Let sm_90a GEMMs run in clusters of two CTAs that multicast B
  /// (convert-fp8-to-gpu's `sm90-multicast`).
  bool sm90Multicast = false;
  /// Let the consumer warpgroups of sm_90a GEMMs issue their wgmmas in turn
  /// (convert-fp8-to-gpu's `sm90-alternate-consumers`).
  bool sm90AlternateConsumers = false;
  /// Let the producer warp of sm_90a GEMMs copy B's column scales into the
  /// ring (convert-fp8-to-gpu's `sm90-producer-column-scales`).
  bool sm90ProducerColumnScales = false;
  /// The elementwise ops whose results only quantizations read, which their
  /// kernels compute as prologues: no launch and no buffer of their own.
  llvm::DenseMap<Value, Operation *> quantizePrologues;
  /// The elementwise ops that the GEMM of a high-precision contraction
  /// computes in its epilogue, planned with the contraction: no launch of
  /// their own, and the contraction's product is never stored.
  llvm::DenseSet<Operation *> contractionEpilogues;
  /// Gather ops over the rows of one space into row groups
  /// (convert-fp8-to-gpu's `fuse-rows`).
  bool fuseRows = true;
  /// The row groups of the function (formRowGroups) and their kernels,
  /// launched at each group's last op; its other ops have no launch and the
  /// values only its ops read no buffer.
  struct PlannedRowGroup {
    RowGroup group;
    LLVM::LLVMFuncOp kernel;
  };
  std::vector<PlannedRowGroup> rowGroups;
  /// The row group of each op in one.
  llvm::DenseMap<Operation *, int64_t> rowGroupOf;
  /// linalg.fill ops only writing the initial values of reductions (their
  /// kernels and row groups take the constant): no launch, no buffer.
  llvm::DenseSet<Operation *> reductionInitFills;
  /// Elementwise ops that the kernels of the reductions before them compute
  /// from each result before storing it (a rounding of f32 sums): no launch
  /// of their own, and the reduction's result is never stored.
  llvm::DenseSet<Operation *> reductionEpilogues;
  /// Column reductions launched before their place, by the quantization
  /// whose per-tensor amax their kernel measures (planColumnSumsWithAmax):
  /// no launch at their own place.
  llvm::DenseSet<Operation *> earlyReductions;

private:
  func::FuncOp func;
  gpu::GPUModuleOp kernels;
  int64_t numSMs;
  LaunchPlan plan;
  llvm::DenseMap<Value, int64_t> buffers;
};

//===----------------------------------------------------------------------===//
// The planners of each op family
//===----------------------------------------------------------------------===//

/// PlanGemm.cpp.
LogicalResult planScaledMatmul(PlanBuilder &plan, ScaledMatmulOp op);
/// With `sm90-tma-store`: sets config.tmaStore when the sm_90a GEMM `gemm`
/// of `config` (its head-major choice made) can store its result by TMA
/// (GemmSM90Config::verify: the kernel keeps its pipeline depth, its tile
/// rows are whole 128-byte boxes). Remarks either way.
void chooseTmaStore(PlanBuilder &plan, Operation *gemm, GemmSM90Config &config);
/// With `sm90-multicast`: sets config.multicastB when the sm_90a GEMM
/// `gemm` of `config`, whose result has `m` rows, can run in clusters of two
/// CTAs sharing B (it has two tile rows or more); remarks either way.
void chooseMulticast(PlanBuilder &plan, Operation *gemm, int64_t m,
                     GemmSM90Config &config);
/// With `sm90-alternate-consumers`: sets config.alternateConsumers when the
/// sm_90a GEMM `gemm` of `config` promotes partial sums each K tile (or more
/// often); remarks either way.
void chooseAlternateConsumers(PlanBuilder &plan, Operation *gemm,
                              GemmSM90Config &config);
/// With `sm90-producer-column-scales`: sets config.producerColumnScales when
/// the sm_90a GEMM `gemm` of `config` has f32 column scales of B in blocks
/// of 128 along K; remarks either way.
void chooseProducerColumnScales(PlanBuilder &plan, Operation *gemm,
                                GemmSM90Config &config);
/// The grid of the persistent GEMM of `config` over `batches` x `tilesM`
/// x `tilesN` tiles: a CTA per tile up to one per multiprocessor, in whole
/// clusters (a cluster per pair of tile rows with multicastB).
std::array<int64_t, 3> getGemmGrid(PlanBuilder &plan,
                                   const ScaledGemmConfig &config,
                                   int64_t batches, int64_t tilesM,
                                   int64_t tilesN);
/// The tensor map through which the kernel of `config` stores `result`, of
/// `batches` matrices of `m` x `n` (`tmaStore`).
TensorMapParam getResultTensorMap(PlanBuilder &plan, Value result,
                                  const GemmSM90Config &config, int64_t batches,
                                  int64_t m, int64_t n);

/// PlanQuantize.cpp.
LogicalResult planDynamicQuantize(PlanBuilder &plan, DynamicQuantizeOp op);
LogicalResult planQuantize(PlanBuilder &plan, QuantizeOp op);
LogicalResult planAmax(PlanBuilder &plan, AmaxOp op);
LogicalResult planComputeScale(PlanBuilder &plan, ComputeScaleOp op);
/// Whether the quantize kernels reading the result of `op`, an elementwise
/// linalg op, compute it (recorded in quantizePrologues); remarks why not
/// when a quantization reads it.
bool planQuantizePrologue(PlanBuilder &plan, linalg::LinalgOp op);

/// PlanState.cpp.
LogicalResult planGlobalLoad(PlanBuilder &plan, ml_program::GlobalLoadOp op);
LogicalResult planGlobalStore(PlanBuilder &plan, ml_program::GlobalStoreOp op);
LogicalResult planUpdateDelayedScale(PlanBuilder &plan,
                                     UpdateDelayedScaleOp op);

/// PlanElementwise.cpp.
LogicalResult planElementwise(PlanBuilder &plan, linalg::LinalgOp op);
LogicalResult planGenerate(PlanBuilder &plan, tensor::GenerateOp op);

/// PlanGroupState.cpp: range-expanded group state (COAT). A step is an
/// elementwise linalg.generic that reads fp8.expand_dequantize results or
/// whose results fp8.expand_quantize encodes, all by the same groups along
/// the last dimension; its kernel decodes and encodes them itself.
bool isGroupStateStep(linalg::LinalgOp op);
LogicalResult planGroupStateStep(PlanBuilder &plan, linalg::LinalgOp op);
LogicalResult planExpandDequantize(PlanBuilder &plan, ExpandDequantizeOp op);
LogicalResult planExpandQuantize(PlanBuilder &plan, ExpandQuantizeOp op);

/// PlanReduction.cpp: linalg ops that reduce and are not contractions.
LogicalResult planReduction(PlanBuilder &plan, linalg::LinalgOp op);
/// In place of the amax kernel of `quantization`, a per-tensor quantization
/// of `input` whose amax goes into the zero-filled `amax`: launches the
/// kernels of a later column reduction of the same buffer, the kernel
/// reading it measuring the amax as well (ReductionConfig::amax), and
/// records the reduction in earlyReductions. Returns false, adding nothing,
/// when no reduction can: one must read the buffer whole, reduce its
/// leading dimensions, belong to no row group and start from a filled
/// constant. Fails (with an error) only where that reduction's own kernel
/// fails to build.
FailureOr<bool> planColumnSumsWithAmax(PlanBuilder &plan,
                                       Operation *quantization, Value input,
                                       int64_t amax, NanPolicy nanPolicy);
/// Records in reductionInitFills the constant fills whose every reader is a
/// reduction taking the tensor as its init (after formRowGroups).
void collectReductionInitFills(PlanBuilder &plan);

/// PlanLayout.cpp: transposes, broadcasts, slices and reshapes; nullopt for
/// other ops.
std::optional<LogicalResult> planLayout(PlanBuilder &plan, Operation *op);
/// With `sm90-head-major-results`: when `result`, to be computed by the
/// sm_90a GEMM `gemm` of `config`, is only split into heads (a
/// tensor.expand_shape of [M, N] to [M, H, D] that only a linalg.transpose
/// to [H, M, D] reads, D even) or, for a batch of GEMMs, only merged from
/// them (a linalg.transpose of [H, M, D] to [M, H, D]), and the kernel can
/// store it so, sets config.outHeadDim or config.outMergedBatches and
/// returns the transpose; remarks when it cannot. Changes nothing in the
/// plan: foldHeadLayout does, once the kernel is built.
linalg::TransposeOp chooseHeadLayout(PlanBuilder &plan, Operation *gemm,
                                     Value result, GemmSM90Config &config);
/// Gives `result` the buffer of `transpose` (chooseHeadLayout's), which
/// then has no launch, and remarks on it.
void foldHeadLayout(PlanBuilder &plan, Operation *gemm, Value result,
                    linalg::TransposeOp transpose);
/// A dense temporary holding `input` with its dimensions in the order
/// `permutation` (as linalg.transpose), copied there for `op`; returns its
/// buffer.
FailureOr<int64_t> planPermutedCopy(PlanBuilder &plan, Operation *op,
                                    Value input, ArrayRef<int64_t> permutation);
/// The buffer the TMA of `gemm` reads `operand` (its A or B) from: its own,
/// or, when its rows are not whole 16-byte units and no quantization padded
/// them (a reader of the codes reads them dense, or they are an argument),
/// a temporary copy of it with padded rows.
FailureOr<int64_t> getGemmOperandBuffer(PlanBuilder &plan, Operation *gemm,
                                        Value operand);

/// PlanRows.cpp: gathers, before the walk, the reductions of the last
/// dimension of a space with the elementwise ops around them into row
/// groups (RowGroup) and builds their kernels; remarks on each.
void formRowGroups(PlanBuilder &plan);
/// Records the launch of row group `index`.
void planRowGroup(PlanBuilder &plan, int64_t index);

/// PlanContraction.cpp: contractions left in bf16, f16 or f32.
LogicalResult planContraction(PlanBuilder &plan, linalg::LinalgOp op);
/// Whether `fill` only writes the zero inits of high-precision contractions,
/// whose GEMMs write A x B without reading them: it needs no kernel.
bool isContractionZeroInit(linalg::FillOp fill);

/// KernelTargets.cpp: the PTX features of the kernel module for `chip`, and
/// the check that its target compiles every instruction the kernels use.
StringRef getPtxFeatures(Chip chip);
LogicalResult checkKernelTargets(gpu::GPUModuleOp kernels, Chip chip);

} // namespace mlir::fp8

#endif // FP8_LIB_CONVERSION_FP8TOGPU_PLANBUILDER_H
