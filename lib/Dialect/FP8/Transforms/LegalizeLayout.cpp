//===- LegalizeLayout.cpp - Tensor-core layout legality of scaled GEMMs ---===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Checks every fp8.scaled_matmul against what the tensor cores of one chip
// read (docs/nvidia-isa.md): element formats, scale blocks along K, 16-byte
// rows for TMA, and operand majorness. A wrong majorness is fixed with a
// transposed copy of the quantized operand (1-byte codes and their scales,
// exact); anything else is an error that says what to change. Nothing is
// left for a lowering to work around silently.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Transforms/LayoutLegality.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Target/Chip.h"

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Remarks.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_FP8LEGALIZELAYOUT
#include "fp8/Dialect/FP8/Transforms/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr StringLiteral kCategory = "fp8-legalize-layout";

/// One operand of a scaled matmul as stored.
struct Operand {
  StringLiteral name;
  Value data, scale;
  GranularityAttr granularity;
  Format format;
  /// Stored with K as the innermost (contiguous) dimension.
  bool kMajor;
  /// The name of its other dimension (M or N) and the extents.
  StringLiteral otherDim;
  int64_t k, other;
};

Operand describe(ScaledMatmulOp op, bool rhs) {
  Value data = rhs ? op.getRhs() : op.getLhs();
  auto type = cast<RankedTensorType>(data.getType());
  int64_t rank = type.getRank();
  int64_t last = type.getDimSize(rank - 1), prev = type.getDimSize(rank - 2);
  // A is [M, K] unless transpose_lhs; B is [K, N] unless transpose_rhs.
  bool kMajor = rhs ? op.getTransposeRhs() : !op.getTransposeLhs();
  Operand operand{rhs ? StringLiteral("B") : StringLiteral("A"),
                  data,
                  rhs ? op.getRhsScale() : op.getLhsScale(),
                  rhs ? op.getRhsGranularity() : op.getLhsGranularity(),
                  *getFormat(type.getElementType()),
                  kMajor,
                  rhs ? StringLiteral("N") : StringLiteral("M"),
                  kMajor ? last : prev,
                  kMajor ? prev : last};
  return operand;
}

std::string formatExtent(int64_t extent) {
  return ShapedType::isDynamic(extent) ? "?" : std::to_string(extent);
}

/// The next multiple of `step` from `value`.
int64_t roundUp(int64_t value, int64_t step) {
  return (value + step - 1) / step * step;
}

/// Whether a kernel writes `data` with its rows padded to 16 bytes, so that K
/// needs no alignment: a quantization in this graph (through transposes that
/// fold into it), or a transposed copy that only GEMMs read (the layout
/// kernel pads the rows of such a copy, the K-major copy of a prepared
/// weight's codes).
bool hasPaddedRows(Value data) {
  // A transpose that keeps the bytes in place makes no copy.
  if (auto transpose = data.getDefiningOp<linalg::TransposeOp>();
      transpose && !isTransposeInvariant(transpose.getInput()) &&
      isReadOnlyAsGemmOperand(data))
    return true;
  while (auto transpose = data.getDefiningOp<linalg::TransposeOp>())
    data = transpose.getInput();
  return isa_and_nonnull<DynamicQuantizeOp, QuantizeOp>(data.getDefiningOp());
}

/// Whether the codes of `data` come from constants alone (through
/// quantizations, transposes and reshapes): fp8-quantize-constants makes
/// them constants, including their transposed copies, which are stored
/// unpadded.
bool isFoldedToConstant(Value data) {
  while (Operation *def = data.getDefiningOp()) {
    if (def->hasTrait<OpTrait::ConstantLike>())
      return true;
    if (auto transpose = dyn_cast<linalg::TransposeOp>(def))
      data = transpose.getInput();
    else if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
      data = def->getOperand(0);
    else if (auto quantize = dyn_cast<DynamicQuantizeOp>(def))
      data = quantize.getInput();
    else if (auto quantize = dyn_cast<QuantizeOp>(def))
      data = quantize.getInput();
    else
      return false;
  }
  return false;
}

/// Checks what no copy can fix for one operand; emits the errors.
LogicalResult checkOperand(ScaledMatmulOp op, const Operand &operand,
                           Chip chip) {
  StringRef chipName = getChipName(chip);
  Type element = getFormatType(op.getContext(), operand.format);
  if (!supportsFormat(chip, operand.format))
    return op.emitError() << "operand " << operand.name << " is " << element
                          << ", which " << chipName << " (" << getMmaName(chip)
                          << ") does not multiply; "
                          << (operand.format == Format::E2M1
                                  ? "FP4 needs sm_100a (tcgen05.mma "
                                    "kind::mxf4nvf4), or quantize to e4m3 "
                                    "with a recipe such as mxfp8"
                                  : "use e4m3 or e5m2");
  // Scale blocks along K must cover whole MMA instructions.
  auto type = cast<RankedTensorType>(operand.data.getType());
  SmallVector<int64_t> block =
      operand.granularity.getBlockShape(type.getShape());
  int64_t rank = type.getRank();
  int64_t blockK = block[operand.kMajor ? rank - 1 : rank - 2];
  Type scaleElement =
      cast<RankedTensorType>(operand.scale.getType()).getElementType();
  int64_t step = isa<Float8E4M3FNType>(scaleElement) ? 16 : 32;
  bool wholeK = !ShapedType::isDynamic(operand.k) && blockK >= operand.k;
  if (!ShapedType::isDynamic(blockK) && !wholeK && blockK % step != 0)
    return op.emitError()
           << "operand " << operand.name << " has a new scale every " << blockK
           << " elements of K (granularity "
           << formatGranularity(operand.granularity) << "); " << chipName
           << " applies " << scaleElement << " scales to whole blocks of "
           << step << " elements of K, so blocks along K must be multiples of "
           << step << " or span K";
  // TMA loads rows of the K-major operand: 16-byte multiples.
  int64_t bits = getFormatInfo(operand.format).getBitWidth();
  int64_t elementsPer16Bytes = 128 / bits;
  // An MN-major operand is read through a K-major copy that
  // fp8-legalize-layout inserts, which only GEMMs read: its kernel pads the
  // rows, unless the copy becomes a constant.
  bool copiedPadded = !operand.kMajor && !isFoldedToConstant(operand.data);
  if (!ShapedType::isDynamic(operand.k) &&
      operand.k % elementsPer16Bytes != 0 && !copiedPadded &&
      !hasPaddedRows(operand.data)) {
    return op.emitError()
           << "K = " << operand.k << " gives rows of "
           << (operand.k * bits % 8 == 0
                   ? std::to_string(operand.k * bits / 8)
                   : llvm::formatv("{0:f1}", operand.k * bits / 8.0).str())
           << " bytes of " << element
           << "; TMA reads rows that are multiples of 16 bytes, so "
           << "K must be a multiple of " << elementsPer16Bytes << ": pad K to "
           << roundUp(operand.k, elementsPer16Bytes)
           << " with zeros in both operands (operands quantized in the "
              "graph are padded by their quantization kernels, and "
              "transposed copies that only GEMMs read by their layout "
              "kernels)";
  }
  return success();
}

/// The result rows: a multiple of 16 bytes for TMA stores.
LogicalResult checkResult(ScaledMatmulOp op) {
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  int64_t n = resultType.getDimSize(resultType.getRank() - 1);
  int64_t outBits = resultType.getElementTypeBitWidth();
  if (ShapedType::isDynamic(n)) {
    op.emitWarning() << "N is dynamic: the 16-byte row alignment of the "
                        "result (N a multiple of "
                     << 128 / outBits << " for " << resultType.getElementType()
                     << ") must be checked at launch";
    return success();
  }
  if (n * outBits % 128 != 0)
    return op.emitError() << "N = " << n << " gives result rows of "
                          << n * outBits / 8 << " bytes ("
                          << resultType.getElementType()
                          << "); TMA stores rows that are multiples of 16 "
                             "bytes: pad N to "
                          << roundUp(n, 128 / outBits);
  return success();
}

/// Checks formats, scale blocks and alignment of both operands and the
/// result; warns once about a dynamic K.
LogicalResult checkFixedConstraints(ScaledMatmulOp op, Chip chip) {
  for (bool rhs : {false, true})
    if (failed(checkOperand(op, describe(op, rhs), chip)))
      return failure();
  Operand lhs = describe(op, /*rhs=*/false);
  if (ShapedType::isDynamic(lhs.k)) {
    Operand rhs = describe(op, /*rhs=*/true);
    int64_t multiple = 128 / std::min(getFormatInfo(lhs.format).getBitWidth(),
                                      getFormatInfo(rhs.format).getBitWidth());
    op.emitWarning() << "K is dynamic: the 16-byte row alignment TMA needs "
                        "(K a multiple of "
                     << multiple << ") must be checked at launch";
  }
  return checkResult(op);
}

/// Whether `operand` can stay as stored on `chip`; otherwise why not.
std::optional<std::string> majornessProblem(ScaledMatmulOp op,
                                            const Operand &operand, Chip chip) {
  if (operand.kMajor)
    return std::nullopt;
  Type element = getFormatType(op.getContext(), operand.format);
  if (kernelsReadMNMajor(chip, operand.format)) {
    int64_t bits = getFormatInfo(operand.format).getBitWidth();
    if (!ShapedType::isDynamic(operand.other) &&
        operand.other * bits % 128 == 0)
      return std::nullopt;
    return llvm::formatv("its {0}-major rows of {1} elements are not "
                         "16-byte multiples for TMA",
                         operand.otherDim, formatExtent(operand.other))
        .str();
  }
  if (tensorCoresReadMNMajor(chip, operand.format))
    return llvm::formatv("the {0} GEMM reads {1} operands K-major only ({2} "
                         "could read them MN-major through the instruction "
                         "descriptor's transpose bits, which are not "
                         "generated)",
                         getChipName(chip), element, getMmaName(chip))
        .str();
  return llvm::formatv("{0} {1} reads {2} operands K-major only",
                       getChipName(chip), getMmaName(chip), element)
      .str();
}

std::string describeStorage(const Operand &operand) {
  return llvm::formatv("{0} is stored [K = {1}, {2} = {3}] ({2}-major)",
                       operand.name, formatExtent(operand.k), operand.otherDim,
                       formatExtent(operand.other));
}

struct FP8LegalizeLayoutPass
    : fp8::impl::FP8LegalizeLayoutBase<FP8LegalizeLayoutPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult legalize(ScaledMatmulOp op, Chip chip);
  /// Checks what no copy can fix; emits the errors.
  void transposeOperand(ScaledMatmulOp op, bool rhs);
  void remark(ScaledMatmulOp op, const std::string &message, bool passed);

  DominanceInfo *dominance = nullptr;
  /// Transposed copies made so far: (data, scale) -> (data^T, scale^T).
  llvm::DenseMap<std::pair<Value, Value>, std::pair<Value, Value>> copies;
};

void FP8LegalizeLayoutPass::remark(ScaledMatmulOp op,
                                   const std::string &message, bool passed) {
  std::string function;
  if (auto f = op->getParentOfType<FunctionOpInterface>())
    function = f.getName().str();
  auto opts = remark::RemarkOpts::name(passed ? "legal" : "copied")
                  .category(kCategory)
                  .function(function);
  if (passed)
    remark::passed(op.getLoc(), opts) << remark::add("{0}", message);
  else
    remark::missed(op.getLoc(), opts) << remark::add("{0}", message);
}

void FP8LegalizeLayoutPass::transposeOperand(ScaledMatmulOp op, bool rhs) {
  OpOperand &dataOperand = rhs ? op.getRhsMutable() : op.getLhsMutable();
  OpOperand &scaleOperand =
      rhs ? op.getRhsScaleMutable() : op.getLhsScaleMutable();
  Value data = dataOperand.get(), scale = scaleOperand.get();
  auto key = std::make_pair(data, scale);
  auto it = copies.find(key);
  std::pair<Value, Value> copy;
  if (it != copies.end() &&
      dominance->properlyDominates(it->second.first, op) &&
      dominance->properlyDominates(it->second.second, op)) {
    copy = it->second;
  } else {
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto scaleType = cast<RankedTensorType>(scale.getType());
    ArrayRef<int64_t> scaleShape = scaleType.getShape();
    bool trivial = scaleShape[scaleShape.size() - 1] == 1 &&
                   scaleShape[scaleShape.size() - 2] == 1;
    copy = {transposeLastTwo(b, loc, data),
            trivial ? scale : transposeLastTwo(b, loc, scale)};
    copies[key] = copy;
  }
  dataOperand.set(copy.first);
  scaleOperand.set(copy.second);
  int64_t rank = cast<RankedTensorType>(data.getType()).getRank();
  if (rhs) {
    op.setRhsGranularityAttr(op.getRhsGranularity().getTransposed(rank));
    op.setTransposeRhs(!op.getTransposeRhs());
  } else {
    op.setLhsGranularityAttr(op.getLhsGranularity().getTransposed(rank));
    op.setTransposeLhs(!op.getTransposeLhs());
  }
}

LogicalResult FP8LegalizeLayoutPass::legalize(ScaledMatmulOp op, Chip chip) {
  if (failed(checkFixedConstraints(op, chip)))
    return failure();
  // Majorness, fixed with transposed copies of the quantized operands.
  for (bool rhs : {false, true}) {
    Operand operand = describe(op, rhs);
    if (operand.kMajor)
      continue;
    std::string stored = describeStorage(operand);
    std::optional<std::string> problem = majornessProblem(op, operand, chip);
    if (!problem) {
      remark(op,
             llvm::formatv("{0}; {1} reads it through the transpose bit of "
                           "the instruction descriptor",
                           stored, getMmaName(chip))
                 .str(),
             /*passed=*/true);
      continue;
    }
    if (!allowCopies)
      return op.emitError()
             << "operand " << stored << ", but " << *problem
             << "; store it K-major, or let fp8-legalize-layout insert a "
                "transposed copy (allow-copies=true)";
    transposeOperand(op, rhs);
    remark(op,
           llvm::formatv("{0}, but {1}: inserted a transposed copy of its "
                         "codes and scales",
                         stored, *problem)
               .str(),
           /*passed=*/false);
  }
  return success();
}

void FP8LegalizeLayoutPass::runOnOperation() {
  DominanceInfo &info = getAnalysis<DominanceInfo>();
  dominance = &info;
  copies.clear();
  bool failed = false;
  getOperation()->walk([&](ScaledMatmulOp op) {
    if (mlir::failed(legalize(op, chip)))
      failed = true;
  });
  dominance = nullptr;
  if (failed)
    signalPassFailure();
}

} // namespace

ScaledGemmShape mlir::fp8::describeScaledGemm(ScaledMatmulOp op) {
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  ScaledGemmShape g;
  // The matrix dimensions follow the batch dimension of a rank-3 op.
  int64_t lead = resultType.getRank() - 2;
  if (lead == 1)
    g.batches = resultType.getDimSize(0);
  g.aKMajor = !op.getTransposeLhs();
  g.bKMajor = op.getTransposeRhs();
  g.m = resultType.getDimSize(lead);
  g.n = resultType.getDimSize(lead + 1);
  g.k = lhsType.getDimSize(lead + (g.aKMajor ? 1 : 0));
  SmallVector<int64_t> aBlock =
      op.getLhsGranularity().getBlockShape(lhsType.getShape());
  SmallVector<int64_t> bBlock =
      op.getRhsGranularity().getBlockShape(rhsType.getShape());
  g.aRows = aBlock[lead + (g.aKMajor ? 0 : 1)];
  g.aK = aBlock[lead + (g.aKMajor ? 1 : 0)];
  g.bRows = bBlock[lead + (g.bKMajor ? 0 : 1)];
  g.bK = bBlock[lead + (g.bKMajor ? 1 : 0)];
  // Blocks name the trailing dimensions; K is the last or the one before.
  ArrayRef<int64_t> declared = op.getLhsGranularity().getBlock();
  size_t fromEnd = g.aKMajor ? 0 : 1;
  int64_t declaredK =
      declared.size() > fromEnd ? declared[declared.size() - 1 - fromEnd] : 1;
  g.declaredK = declaredK > 0 ? declaredK : g.aK;
  g.scaleElement =
      cast<RankedTensorType>(op.getLhsScale().getType()).getElementType();
  return g;
}

LogicalResult mlir::fp8::verifyTensorCoreLegality(ScaledMatmulOp op,
                                                  Chip chip) {
  if (failed(checkFixedConstraints(op, chip)))
    return failure();
  for (bool rhs : {false, true}) {
    Operand operand = describe(op, rhs);
    if (std::optional<std::string> problem =
            majornessProblem(op, operand, chip))
      return op.emitError()
             << "operand " << describeStorage(operand) << ", but " << *problem
             << "; run fp8-legalize-layout=chip=" << getChipName(chip)
             << " first";
  }
  return success();
}
