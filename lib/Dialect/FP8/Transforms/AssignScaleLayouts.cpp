//===- AssignScaleLayouts.cpp - Scale storage for the GEMMs reading it ----===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Decides, in the graph, which quantizations store their block scales in the
// scale-factor layout of the sm_100a block-scaled GEMMs that read them
// (#fp8.tcgen05_scale_layout), so that the GPU lowering writes what the
// attribute says and never looks ahead to the GEMMs itself.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/LayoutLegality.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Target/ScaleFactorLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8ASSIGNSCALELAYOUTS
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// How one block-scaled sm_100a GEMM reads a scale tensor, in the frame of
/// the tensor as the quantization stores it.
struct ScaleRead {
  /// The operand's rows (M or N) and its k-blocks.
  int64_t rows = 0, kBlocks = 0;
  int64_t stageKBlocks = 0;
  /// Rows of the operand sharing one scale (1, or a square block's extent).
  int64_t rowsPerScale = 1;
  /// The dimension of the stored scales that K runs along.
  int64_t kDim = 1;

  bool operator==(const ScaleRead &other) const {
    return rows == other.rows && kBlocks == other.kBlocks &&
           stageKBlocks == other.stageKBlocks &&
           rowsPerScale == other.rowsPerScale && kDim == other.kDim;
  }
};

/// The read of `use` by a block-scaled GEMM (of each matrix of a batched
/// one), as its lhs or rhs scales, or std::nullopt for any other use.
/// `throughTranspose`: the GEMM reads a transpose of the stored scales.
std::optional<ScaleRead> getGemmRead(OpOperand &use, bool throughTranspose) {
  auto gemm = dyn_cast<ScaledMatmulOp>(use.getOwner());
  if (!gemm)
    return std::nullopt;
  bool lhs = &use == &gemm.getLhsScaleMutable();
  if (!lhs && &use != &gemm.getRhsScaleMutable())
    return std::nullopt;
  ScaledGemmShape g = describeScaledGemm(gemm);
  // The types whose blocks the tensor cores apply.
  if (!isa<Float8E8M0FNUType, Float8E4M3FNType>(g.scaleElement))
    return std::nullopt;
  Value operand = lhs ? gemm.getLhs() : gemm.getRhs();
  std::optional<Format> format = getFormat(getElementTypeOrSelf(operand));
  if (!format)
    return std::nullopt;
  ScaleRead read;
  read.rows = lhs ? g.m : g.n;
  read.kBlocks = llvm::divideCeil(g.k, g.declaredK);
  read.stageKBlocks =
      getTcgen05StageKBlocks(getFormatInfo(*format).getBitWidth(), g.declaredK);
  read.rowsPerScale = lhs ? g.aRows : g.bRows;
  // The scales of a K-major operand are [rows, k-blocks] in the op.
  bool kMajor = lhs ? g.aKMajor : g.bKMajor;
  read.kDim = kMajor != throughTranspose ? 1 : 0;
  return read;
}

/// Whether `user` is a transpose of `value` (of each of its matrices).
bool isTransposeOf(Operation *user, Value value) {
  auto transpose = dyn_cast<linalg::TransposeOp>(user);
  return transpose && transpose.getInput() == value &&
         isLastTwoSwap(transpose.getPermutation());
}

/// The arguments that take `scale` from its prepare function
/// (fp8-prepare-weights), when `scale` is only returned by one: the
/// `fp8.prepared` arguments of the result in every function whose
/// `fp8.prepare` names it (a prepare group's functions may each take it).
SmallVector<BlockArgument> getPreparedArguments(Value scale) {
  if (!scale.hasOneUse())
    return {};
  OpOperand &use = *scale.use_begin();
  auto ret = dyn_cast<func::ReturnOp>(use.getOwner());
  if (!ret)
    return {};
  auto prepare = ret->getParentOfType<func::FuncOp>();
  auto module = prepare->getParentOfType<ModuleOp>();
  if (!module)
    return {};
  SmallVector<BlockArgument> arguments;
  for (auto function : module.getOps<func::FuncOp>()) {
    auto taken = function->getAttrOfType<FlatSymbolRefAttr>(kPrepareAttrName);
    if (!taken || taken.getAttr() != prepare.getNameAttr() ||
        function.isExternal())
      continue;
    for (unsigned i = 0, e = function.getNumArguments(); i < e; ++i)
      if (auto index =
              function.getArgAttrOfType<IntegerAttr>(i, kPreparedAttrName))
        if (index.getInt() == use.getOperandNumber())
          arguments.push_back(function.getArgument(i));
  }
  return arguments;
}

/// The layout in which `scale` (with the codes `data`, quantized by
/// `granularity` from an input of `inputShape`, stored transposed if
/// `transposed`) is written for the GEMMs reading it, if they all read it
/// alike and nothing else reads it. Scales that a prepare function only
/// returns are read by the GEMMs of the function that takes them: when they
/// get a layout, that function's argument is marked with it
/// (`fp8.scale_layout`), so that its GEMMs read it as it is.
std::optional<Tcgen05ScaleLayoutAttr>
getScaleLayout(Value data, Value scale, GranularityAttr granularity,
               ArrayRef<int64_t> inputShape, bool transposed) {
  SmallVector<BlockArgument> prepared = getPreparedArguments(scale);
  SmallVector<std::pair<OpOperand *, bool>> uses;
  if (!prepared.empty()) {
    // The arguments are read as they are stored: directly, not through
    // transposes, which the planner folds for quantizations only.
    for (BlockArgument argument : prepared) {
      if (argument.use_empty() ||
          llvm::any_of(argument.getUsers(), [&](Operation *u) {
            return isTransposeOf(u, argument);
          }))
        return std::nullopt;
      for (OpOperand &use : argument.getUses())
        uses.push_back({&use, false});
    }
  } else {
    if (scale.use_empty())
      return std::nullopt;
    bool throughTransposes = llvm::all_of(scale.getUsers(), [&](Operation *u) {
      return isTransposeOf(u, scale);
    });
    if (throughTransposes) {
      for (Operation *transpose : scale.getUsers())
        for (OpOperand &use : transpose->getResult(0).getUses())
          uses.push_back({&use, true});
    } else {
      for (OpOperand &use : scale.getUses())
        uses.push_back({&use, false});
    }
  }
  std::optional<ScaleRead> common;
  for (auto [use, throughTranspose] : uses) {
    std::optional<ScaleRead> read = getGemmRead(*use, throughTranspose);
    if (!read || (common && !(*common == *read)))
      return std::nullopt;
    common = read;
  }
  if (!common)
    return std::nullopt;

  // The quantization's blocks must be the GEMM's: the stored block's extent
  // across K (clamped to the data) is the rows sharing one scale, and the
  // stored codes and scales have the rows and k-blocks the GEMM reads. A
  // batch of matrices has blocks inside each matrix, one layout per matrix.
  auto dataType = cast<RankedTensorType>(data.getType());
  auto scaleType = cast<RankedTensorType>(scale.getType());
  int64_t rank = dataType.getRank();
  if ((rank != 2 && rank != 3) || !dataType.hasStaticShape())
    return std::nullopt;
  int64_t lead = rank - 2;
  if (lead == 1 && scaleType.getDimSize(0) != dataType.getDimSize(0))
    return std::nullopt;
  SmallVector<int64_t> block = granularity.getBlockShape(inputShape);
  if (transposed)
    std::swap(block[lead], block[lead + 1]);
  int64_t rowDim = lead + 1 - common->kDim;
  if (std::min(block[rowDim], dataType.getDimSize(rowDim)) !=
          common->rowsPerScale ||
      dataType.getDimSize(rowDim) != common->rows ||
      scaleType.getDimSize(lead + common->kDim) != common->kBlocks)
    return std::nullopt;
  auto layout = Tcgen05ScaleLayoutAttr::get(data.getContext(), common->kDim,
                                            common->stageKBlocks);
  for (BlockArgument argument : prepared) {
    auto function = cast<func::FuncOp>(argument.getOwner()->getParentOp());
    function.setArgAttr(argument.getArgNumber(), kScaleLayoutAttrName, layout);
  }
  return layout;
}

struct FP8AssignScaleLayoutsPass
    : fp8::impl::FP8AssignScaleLayoutsBase<FP8AssignScaleLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Only the sm_100a GEMM reads scales in another layout than row-major.
    if (chip != Chip::SM100a)
      return;
    getOperation()->walk([](DynamicQuantizeOp op) {
      int64_t rank = op.getInput().getType().getRank();
      if (rank != 2 && rank != 3)
        return;
      ArrayRef<int64_t> shape = op.getInput().getType().getShape();
      if (auto layout = getScaleLayout(op.getData(), op.getScale(),
                                       op.getGranularity(), shape,
                                       /*transposed=*/false))
        op.setScaleLayoutAttr(*layout);
      if (GranularityAttr col = op.getColGranularityAttr())
        if (auto layout = getScaleLayout(op.getColData(), op.getColScale(), col,
                                         shape, op.getTransposed()))
          op.setColScaleLayoutAttr(*layout);
    });
  }
};

} // namespace
