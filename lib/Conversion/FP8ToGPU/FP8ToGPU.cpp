//===- FP8ToGPU.cpp - fp8 graphs to GPU kernels and a launch plan ---------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Walks each function in order, gives every tensor a buffer, generates (or
// reuses) a kernel per op configuration in `gpu.module @fp8_kernels`, and
// records the launches. The plan is an attribute; fp8-write-artifacts writes
// it as the runtime's JSON manifest.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Conversion/FP8ToGPU/LaunchPlan.h"
#include "fp8/Conversion/Passes.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/LayoutLegality.h"
#include "fp8/Target/Chip.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_CONVERTFP8TOGPU
#include "fp8/Conversion/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr StringLiteral kKernelModule = "fp8_kernels";

/// The PTX features of a chip: sm_90a needs PTX 8.0; tcgen05 with block32
/// and block16 scales needs PTX 8.8.
StringRef getPtxFeatures(Chip chip) {
  return chip == Chip::SM90a ? "+ptx80" : "+ptx88";
}

/// What the NVFP4 and sm_100a variants of a quantization add.
struct QuantizeExtras {
  /// Two-level scales: the buffer of the tensor's amax and the one receiving
  /// the global decode scale.
  int64_t globalAmax = -1;
  int64_t globalScale = -1;
  /// Scales written in this layout (K along the input's columns if
  /// `kAlongCols`).
  std::optional<Tcgen05ScaleLayout> tcgen05Scales;
  bool kAlongCols = true;
};

/// How an sm_100a GEMM reads one operand's block scales.
struct Tcgen05ScaleRead {
  Tcgen05ScaleLayout layout;
  int64_t rowsPerScale = 1;
  /// The operand is K-major in the op (else its scales are [k, rows]).
  bool kMajor = true;
};

/// The sm_100a GEMM of a scaled matmul: the kernel configuration, the
/// operands' majorness in the op, the extents, and the rows (of M or N)
/// sharing one scale.
struct SM100Gemm {
  GemmSM100Config config;
  bool aKMajor = true, bKMajor = true;
  int64_t m = 0, n = 0, k = 0;
  int64_t aRowsPerScale = 1, bRowsPerScale = 1;
};

/// Plans the sm_100a GEMM of `op`; fails with a reason if there is none.
FailureOr<SM100Gemm> planSM100Gemm(ScaledMatmulOp op, std::string &reason);

/// Builds the plan of one function.
class PlanBuilder {
public:
  PlanBuilder(func::FuncOp func, gpu::GPUModuleOp kernels, Chip chip,
              int64_t numSMs)
      : func(func), kernels(kernels), chip(chip), numSMs(numSMs),
        ctx(func.getContext()) {}

  LogicalResult build();
  DictionaryAttr getPlan();

private:
  LogicalResult lower(Operation *op);
  LogicalResult lowerScaledMatmul(ScaledMatmulOp op);
  /// NVFP4: a zero-filled f32 buffer and the kernel reducing the tensor's
  /// amax into it (extras.globalAmax).
  LogicalResult addGlobalAmaxLaunches(DynamicQuantizeOp op,
                                      QuantizeExtras &extras);
  /// sm_100a: the tcgen05 GEMM of GemmSM100Config.
  LogicalResult lowerScaledMatmulSM100(ScaledMatmulOp op);
  /// sm_100a: records the scale layouts the function's block-scaled GEMMs
  /// read, so that quantizations can write them directly.
  void collectTcgen05ScaleReads();
  /// The layout and orientation in which a quantization writes `scale`
  /// (folded through `transposes` of it) for the sm_100a GEMMs reading it, if
  /// they all read it alike and nothing else does.
  std::optional<std::pair<Tcgen05ScaleLayout, bool>>
  getDirectTcgen05Scales(Value scale, bool viaTransposes, int64_t blockRows,
                         int64_t blockCols);
  /// The buffer holding the block scales `scale` (of the operand that is
  /// K-major in the op when `kMajor`) in the layout the sm_100a GEMM copies
  /// from: the quantization's own buffer when it wrote that layout, else a
  /// copy made by the staging kernel.
  int64_t getTcgen05Scales(Value scale, bool kMajor,
                           const Tcgen05ScaleLayout &layout,
                           int64_t rowsPerScale);
  LogicalResult lowerDynamicQuantize(DynamicQuantizeOp op);
  /// The GEMM parameters after the bias and scales: the out scale (FP8
  /// results) and the amax (zero-filled first), where the op has them.
  void appendResultParams(ScaledMatmulOp op, SmallVector<Attribute> &params) {
    if (Value outScale = op.getOutScale())
      params.push_back(bufferParam(bufferOf(outScale)));
    if (Value amax = op.getAmax()) {
      int64_t amaxBuffer = bufferOf(amax);
      addFill(amaxBuffer, 0);
      params.push_back(bufferParam(amaxBuffer));
    }
  }
  /// Launches quantizing `input` by `granularity` into `data` and `scale`
  /// buffers, stored transposed if `transposed`.
  LogicalResult lowerQuantize(QuantizeOp op);
  LogicalResult lowerAmax(AmaxOp op);
  LogicalResult lowerUpdateDelayedScale(UpdateDelayedScaleOp op);
  /// Launches quantizing (or, with `amaxOnly`, reducing) the matrix
  /// `input` of `op` by `granularity`: `config` gives the formats, rule and
  /// policies; `data` and `scale` are the result buffers (or the amax
  /// buffer), stored transposed if `transposed`; `givenScales` >= 0 is a
  /// buffer of encode scales to quantize by.
  LogicalResult
  addQuantizeLaunches(Operation *op, Value input, GranularityAttr granularity,
                      QuantizeConfig config, int64_t data, int64_t scale,
                      bool transposed, bool returned, int64_t givenScales = -1,
                      bool amaxOnly = false, const QuantizeExtras &extras = {});
  /// The buffer of ml_program global `name`, created on first use.
  int64_t stateBuffer(Operation *user, StringRef name);
  void addCopy(int64_t from, int64_t to, int64_t bytes) {
    launches.push_back(
        dict({named("kind", str("copy")), named("from", i64(from)),
              named("to", i64(to)), named("bytes", i64(bytes))}));
  }
  int64_t bytesOf(int64_t buffer) {
    return cast<DictionaryAttr>(bufferAttrs[buffer])
        .getAs<IntegerAttr>("bytes")
        .getInt();
  }

  /// The buffer of `value`, creating a temporary for op results.
  int64_t bufferOf(Value value);
  int64_t addBuffer(StringRef kind, RankedTensorType type,
                    ArrayRef<NamedAttribute> extra = {});

  NamedAttribute named(StringRef name, Attribute value) {
    return NamedAttribute(StringAttr::get(ctx, name), value);
  }
  Attribute i64(int64_t v) {
    return IntegerAttr::get(IntegerType::get(ctx, 64), v);
  }
  Attribute str(StringRef s) { return StringAttr::get(ctx, s); }
  Attribute array(ArrayRef<int64_t> values) {
    return ArrayAttr::get(
        ctx, llvm::map_to_vector(values, [&](int64_t v) { return i64(v); }));
  }
  DictionaryAttr dict(ArrayRef<NamedAttribute> entries) {
    return DictionaryAttr::get(ctx, entries);
  }

  /// Parameters of kernel launches.
  Attribute bufferParam(int64_t buffer) {
    return dict({named("kind", str("buffer")), named("buffer", i64(buffer))});
  }
  Attribute i32Param(int64_t value) {
    return dict({named("kind", str("i32")), named("value", i64(value))});
  }
  /// A 2-D TMA tensor map over an 8-bit [rows, cols] row-major buffer with
  /// boxes of [boxRows, boxCols] and 128-byte swizzle.
  /// Elements of `bits` < 8 (E2M1) are packed: the map is over bytes.
  Attribute tensorMapParam(int64_t buffer, int64_t rows, int64_t cols,
                           int64_t boxRows, int64_t boxCols, int64_t bits = 8) {
    auto bytes = [&](int64_t elements) { return (elements * bits + 7) / 8; };
    return dict({named("kind", str("tensor_map")), named("buffer", i64(buffer)),
                 named("dtype", str("uint8")),
                 named("dims", array({bytes(cols), rows})),
                 named("strides", array({bytes(pitchOf(buffer, cols))})),
                 named("box", array({bytes(boxCols), boxRows})),
                 named("swizzle", str("128B"))});
  }
  void addFill(int64_t buffer, int64_t byte) {
    launches.push_back(
        dict({named("kind", str("fill")), named("buffer", i64(buffer)),
              named("byte", i64(byte))}));
  }
  void addKernelLaunch(StringRef kernel, ArrayRef<int64_t> grid,
                       ArrayRef<int64_t> block, int64_t sharedBytes,
                       ArrayRef<Attribute> params, bool persistent) {
    launches.push_back(
        dict({named("kind", str("kernel")), named("kernel", str(kernel)),
              named("grid", array(grid)), named("block", array(block)),
              named("cluster", array({1, 1, 1})),
              named("shared_bytes", i64(sharedBytes)),
              named("persistent", BoolAttr::get(ctx, persistent)),
              named("params", ArrayAttr::get(ctx, params))}));
  }

  func::FuncOp func;
  gpu::GPUModuleOp kernels;
  Chip chip;
  int64_t numSMs;
  MLIRContext *ctx;

  llvm::DenseMap<Value, int64_t> buffers;
  llvm::StringMap<int64_t> states;
  int64_t elementwiseCount = 0;
  /// Single-element tensors that are 1 / another buffer's element.
  llvm::DenseMap<Value, int64_t> reciprocals;
  /// Scalars read from single-element buffers.
  llvm::DenseMap<Value, int64_t> scalarSources;
  /// Row pitches (in elements) of buffers whose rows are padded to 16
  /// bytes for TMA; other buffers are dense.
  llvm::DenseMap<int64_t, int64_t> pitches;
  int64_t pitchOf(int64_t buffer, int64_t cols) const {
    return pitches.lookup(buffer) ? pitches.lookup(buffer) : cols;
  }
  /// Transposes stored by the quantization of their input.
  llvm::DenseSet<Operation *> foldedTransposes;
  /// sm_100a: buffers stored with their two dimensions swapped (the K-major
  /// copy of an operand an MN-major read wants), and scale buffers written
  /// in the layout of Tcgen05ScaleLayout.
  llvm::DenseSet<int64_t> kMajorCopies;
  llvm::DenseMap<int64_t, Tcgen05ScaleLayout> tcgen05ScaleBuffers;
  /// sm_100a: the block scales GEMMs read, by the value they read.
  llvm::DenseMap<Value, SmallVector<Tcgen05ScaleRead, 1>> tcgen05ScaleReads;
  SmallVector<Attribute> bufferAttrs;
  SmallVector<Attribute> launches;
};

int64_t PlanBuilder::addBuffer(StringRef kind, RankedTensorType type,
                               ArrayRef<NamedAttribute> extra) {
  int64_t id = bufferAttrs.size();
  int64_t bits = type.getElementTypeBitWidth();
  int64_t bytes = (type.getNumElements() * bits + 7) / 8;
  SmallVector<NamedAttribute> entries{
      named("id", i64(id)), named("kind", str(kind)),
      named("type", TypeAttr::get(type)), named("bytes", i64(bytes))};
  llvm::append_range(entries, extra);
  bufferAttrs.push_back(dict(entries));
  return id;
}

int64_t PlanBuilder::bufferOf(Value value) {
  auto it = buffers.find(value);
  if (it != buffers.end())
    return it->second;
  int64_t id = addBuffer("temp", cast<RankedTensorType>(value.getType()));
  buffers[value] = id;
  return id;
}

LogicalResult PlanBuilder::build() {
  FunctionType type = func.getFunctionType();
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape())
      return func.emitError()
             << "fp8 GPU lowering: " << t
             << " is not a statically shaped tensor; the GPU pipeline plans "
                "buffers and launches at compile time";
  }
  for (auto [i, arg] : llvm::enumerate(func.getArguments()))
    buffers[arg] = addBuffer("input", cast<RankedTensorType>(arg.getType()),
                             {named("index", i64(i))});
  if (!func.getBody().hasOneBlock())
    return func.emitError("fp8 GPU lowering: control flow is not supported");
  if (chip == Chip::SM100a)
    collectTcgen05ScaleReads();
  for (Operation &op : func.getBody().front().without_terminator())
    if (failed(lower(&op)))
      return failure();
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
    int64_t id = bufferOf(value);
    auto entry = cast<DictionaryAttr>(bufferAttrs[id]);
    if (entry.getAs<StringAttr>("kind").getValue() != "temp")
      return ret.emitError() << "fp8 GPU lowering: result " << i
                             << " is an input or another result; return "
                                "computed values only";
    if (pitches.count(id))
      return ret.emitError()
             << "fp8 GPU lowering: result " << i
             << " is stored with rows padded to 16 bytes for TMA; return a "
                "tensor whose rows are multiples of 16 bytes";
    NamedAttrList list(entry);
    list.set("kind", str("output"));
    list.set("index", i64(i));
    bufferAttrs[id] = list.getDictionary(ctx);
  }
  return success();
}

DictionaryAttr PlanBuilder::getPlan() {
  return dict({named("chip", str(getChipName(chip))),
               named("kernel_module", str(kKernelModule)),
               named("buffers", ArrayAttr::get(ctx, bufferAttrs)),
               named("launches", ArrayAttr::get(ctx, launches))});
}

LogicalResult PlanBuilder::lower(Operation *op) {
  if (auto matmul = dyn_cast<ScaledMatmulOp>(op))
    return lowerScaledMatmul(matmul);
  if (auto quantize = dyn_cast<DynamicQuantizeOp>(op))
    return lowerDynamicQuantize(quantize);
  if (auto quantize = dyn_cast<QuantizeOp>(op))
    return lowerQuantize(quantize);
  if (auto amax = dyn_cast<AmaxOp>(op))
    return lowerAmax(amax);
  if (auto update = dyn_cast<UpdateDelayedScaleOp>(op))
    return lowerUpdateDelayedScale(update);
  // Delayed-scaling state: a load snapshots the global (a later store in
  // the same call must not change what was loaded); a store copies back.
  if (auto load = dyn_cast<ml_program::GlobalLoadOp>(op)) {
    int64_t state = stateBuffer(op, load.getGlobal().getLeafReference());
    if (state < 0)
      return failure();
    int64_t snapshot = bufferOf(load.getResult());
    addCopy(state, snapshot, bytesOf(state));
    return success();
  }
  if (auto store = dyn_cast<ml_program::GlobalStoreOp>(op)) {
    int64_t state = stateBuffer(op, store.getGlobal().getLeafReference());
    if (state < 0)
      return failure();
    addCopy(bufferOf(store.getValue()), state, bytesOf(state));
    return success();
  }
  // Single elements moved between tensors are views of one buffer.
  if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
    if (extract.getTensor().getType().getNumElements() != 1)
      return op->emitError("fp8 GPU lowering: elements are read on the host "
                           "only from single-element tensors");
    scalarSources[extract.getResult()] = bufferOf(extract.getTensor());
    return success();
  }
  if (auto from = dyn_cast<tensor::FromElementsOp>(op)) {
    if (from.getElements().size() == 1 &&
        scalarSources.count(from.getElements()[0])) {
      buffers[from.getResult()] = scalarSources[from.getElements()[0]];
      return success();
    }
    return op->emitError("fp8 GPU lowering: tensors are built from elements "
                         "of other single-element tensors only");
  }
  // 1 / s of a single scale: the GEMM takes s and divides.
  if (auto divf = dyn_cast<arith::DivFOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(divf.getType());
    DenseElementsAttr numerator;
    if (type && type.getNumElements() == 1 &&
        matchPattern(divf.getLhs(), m_Constant(&numerator)) &&
        numerator.getSplatValue<APFloat>().isExactlyValue(1.0)) {
      reciprocals[divf.getResult()] = bufferOf(divf.getRhs());
      return success();
    }
    return op->emitError("fp8 GPU lowering: elementwise arithmetic on "
                         "tensors has no kernel; only 1 / scale is folded "
                         "into the GEMM that reads it");
  }
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
    if (foldedTransposes.contains(op))
      return success();
    // Moving at most one dimension of extent > 1 keeps the bytes in place.
    if (llvm::count_if(transpose.getInput().getType().getShape(),
                       [](int64_t d) { return d != 1; }) <= 1) {
      buffers[transpose.getResult()[0]] = bufferOf(transpose.getInput());
      return success();
    }
    return op->emitError()
           << "fp8 GPU lowering: a transpose that is not the cast+transpose "
              "of a quantization has no kernel; quantize the transposed "
              "operand instead";
  }
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto type = dyn_cast<RankedTensorType>(constant.getType());
    if (!type)
      return success(); // scalars feed other ops' attributes only
    buffers[constant] =
        addBuffer("constant", type, {named("value", constant.getValue())});
    return success();
  }
  if (isa<tensor::EmptyOp>(op))
    return success();
  // Views of a buffer under another shape share it.
  if (isa<tensor::CastOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
    buffers[op->getResult(0)] = bufferOf(op->getOperand(0));
    return success();
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (linalgOp.getNumReductionLoops() != 0)
      return op->emitError()
             << "fp8 GPU lowering: '" << op->getName()
             << "' reduces; contractions run on the GPU as fp8.scaled_matmul "
                "(run fp8-autocast first), other reductions have no kernel";
    std::string reason;
    std::string name = llvm::formatv("fp8_elementwise_{0}_{1}", func.getName(),
                                     elementwiseCount++)
                           .str();
    OpBuilder builder(kernels.getBody(), kernels.getBody()->end());
    FailureOr<LLVM::LLVMFuncOp> kernel =
        buildElementwiseKernel(builder, op, name, reason);
    if (failed(kernel))
      return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                             << "' has no kernel: " << reason;
    SmallVector<Attribute> params;
    for (Value operand : op->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        params.push_back(bufferParam(bufferOf(operand)));
    for (Value result : op->getResults())
      params.push_back(bufferParam(bufferOf(result)));
    int64_t total = 1;
    for (int64_t r : linalgOp.getStaticLoopRanges())
      total *= r;
    int64_t blocks = std::max<int64_t>(
        1, std::min<int64_t>(llvm::divideCeil(total, 256), numSMs * 8));
    addKernelLaunch(kernel->getName(), {blocks, 1, 1}, {256, 1, 1}, 0, params,
                    /*persistent=*/false);
    return success();
  }
  return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                         << "' has no " << getChipName(chip) << " lowering";
}

LogicalResult PlanBuilder::lowerScaledMatmul(ScaledMatmulOp op) {
  if (failed(verifyTensorCoreLegality(op, chip)))
    return failure();
  if (chip == Chip::SM100a)
    return lowerScaledMatmulSM100(op);
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  if (lhsType.getRank() != 2)
    return op.emitError("fp8 GPU lowering: batched scaled GEMMs are not "
                        "supported yet; unroll the batch");
  int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1);
  int64_t n = rhsType.getDimSize(0);

  GemmSM90Config config;
  config.aFormat = *getFormat(lhsType.getElementType());
  config.bFormat = *getFormat(rhsType.getElementType());
  std::optional<WideElement> out = getWideElement(resultType.getElementType());
  if (!out) {
    std::optional<Format> format = getFormat(resultType.getElementType());
    if (!format || (*format != Format::E4M3 && *format != Format::E5M2))
      return op.emitError()
             << "fp8 GPU lowering: results of type "
             << resultType.getElementType() << " are not generated";
    config.fp8Out = *format;
  } else {
    config.out = *out;
  }
  config.outAmax = bool(op.getAmax());
  if (Value bias = op.getBias())
    config.bias =
        getWideElement(cast<RankedTensorType>(bias.getType()).getElementType());
  config.promoteInterval = op.getPromoteInterval();
  if (op.getLhsGlobalScale() || op.getRhsGlobalScale())
    return op.emitError("fp8 GPU lowering: two-level (NVFP4) scales need "
                        "sm_100a");

  // Scaling from the granularities (A [M, K], B [N, K] as stored).
  SmallVector<int64_t> aBlock =
      op.getLhsGranularity().getBlockShape(lhsType.getShape());
  SmallVector<int64_t> bBlock =
      op.getRhsGranularity().getBlockShape(rhsType.getShape());
  Type scaleElement =
      cast<RankedTensorType>(op.getLhsScale().getType()).getElementType();
  bool aTensor = aBlock[0] >= m && aBlock[1] >= k;
  bool bTensor = bBlock[0] >= n && bBlock[1] >= k;
  bool aRow = aBlock[0] == 1 && aBlock[1] >= k;
  bool bRow = bBlock[0] == 1 && bBlock[1] >= k;
  if (aTensor && bTensor) {
    config.scaling = GemmScaling::Tensor;
  } else if (aRow && bRow) {
    config.scaling = GemmScaling::RowCol;
  } else if (aBlock[0] == 1 && aBlock[1] < k &&
             (bBlock[0] == 1 || bBlock[0] == bBlock[1]) &&
             bBlock[1] == aBlock[1]) {
    config.scaling = GemmScaling::Block;
    config.kGroup = aBlock[1];
    config.bRowsPerScale = bBlock[0];
    config.e8m0Scales = isa<Float8E8M0FNUType>(scaleElement);
  } else {
    return op.emitError()
           << "fp8 GPU lowering: no sm_90a kernel scales A by "
           << formatGranularity(op.getLhsGranularity()) << " and B by "
           << formatGranularity(op.getRhsGranularity())
           << "; supported: both per tensor, both per row along K, or blocks "
              "along K of 32 or 128 (B per row or in square blocks)";
  }
  if (!scaleElement.isF32() && !config.e8m0Scales)
    return op.emitError() << "fp8 GPU lowering: " << scaleElement
                          << " scales on sm_90a are not supported";
  // Narrow tiles when N is small, and for 32-wide scale blocks: promoting
  // four times per K tile with a scale per column keeps a second accumulator
  // and 32 column scales live, which spills at 128 columns.
  bool narrowBlocks =
      config.scaling == GemmScaling::Block && config.kGroup == 32;
  config.blockN = n <= 64 || narrowBlocks ? 64 : 128;
  std::string reason;
  if (failed(config.verify(reason)))
    return op.emitError() << "fp8 GPU lowering: " << reason;

  int64_t a = bufferOf(op.getLhs()), b = bufferOf(op.getRhs());
  // Scales that are 1 / a stored scale: the kernel divides.
  auto scaleBuffer = [&](Value scale, bool &inverted) {
    auto it = reciprocals.find(scale);
    inverted = it != reciprocals.end();
    return inverted ? it->second : bufferOf(scale);
  };
  int64_t sa = scaleBuffer(op.getLhsScale(), config.invertScaleA);
  int64_t sb = scaleBuffer(op.getRhsScale(), config.invertScaleB);
  if ((config.invertScaleA || config.invertScaleB) &&
      config.scaling != GemmScaling::Tensor)
    return op.emitError("fp8 GPU lowering: reciprocal scales are folded into "
                        "per-tensor GEMMs only");
  int64_t c = bufferOf(op.getResult());
  OpBuilder builder(kernels.getBody(), kernels.getBody()->end());
  LLVM::LLVMFuncOp kernel = buildGemmSM90Kernel(builder, op.getLoc(), config);
  SmallVector<Attribute> params{
      tensorMapParam(a, m, k, config.blockM, GemmSM90Config::kBlockK),
      tensorMapParam(b, n, k, config.blockN, GemmSM90Config::kBlockK),
      bufferParam(c), bufferParam(sa), bufferParam(sb)};
  if (Value bias = op.getBias())
    params.push_back(bufferParam(bufferOf(bias)));
  appendResultParams(op, params);
  params.append({i32Param(m), i32Param(n), i32Param(k)});
  int64_t tiles = ((m + config.blockM - 1) / config.blockM) *
                  ((n + config.blockN - 1) / config.blockN);
  addKernelLaunch(kernel.getName(), {std::min(tiles, numSMs), 1, 1},
                  {GemmSM90Config::kThreads, 1, 1},
                  config.getSharedMemoryBytes(), params,
                  /*persistent=*/true);
  return success();
}

FailureOr<SM100Gemm> planSM100Gemm(ScaledMatmulOp op, std::string &reason) {
  auto fail = [&](const Twine &why) -> FailureOr<SM100Gemm> {
    reason = why.str();
    return failure();
  };
  auto lhsType = cast<RankedTensorType>(op.getLhs().getType());
  auto rhsType = cast<RankedTensorType>(op.getRhs().getType());
  auto resultType = cast<RankedTensorType>(op.getResult().getType());
  if (lhsType.getRank() != 2)
    return fail("batched scaled GEMMs are not supported yet; unroll the "
                "batch");
  SM100Gemm gemm;
  gemm.aKMajor = !op.getTransposeLhs();
  gemm.bKMajor = op.getTransposeRhs();
  gemm.m = resultType.getDimSize(0);
  gemm.n = resultType.getDimSize(1);
  gemm.k = lhsType.getDimSize(gemm.aKMajor ? 1 : 0);
  int64_t m = gemm.m, n = gemm.n, k = gemm.k;
  GemmSM100Config &config = gemm.config;
  config.aFormat = *getFormat(lhsType.getElementType());
  config.bFormat = *getFormat(rhsType.getElementType());
  std::optional<WideElement> out = getWideElement(resultType.getElementType());
  if (out) {
    config.out = *out;
  } else {
    std::optional<Format> format = getFormat(resultType.getElementType());
    if (!format || (*format != Format::E4M3 && *format != Format::E5M2)) {
      std::string type;
      llvm::raw_string_ostream(type) << resultType.getElementType();
      return fail("results of type " + type + " are not generated");
    }
    config.fp8Out = *format;
  }
  config.outAmax = bool(op.getAmax());
  if (Value bias = op.getBias())
    config.bias =
        getWideElement(cast<RankedTensorType>(bias.getType()).getElementType());
  int64_t outBytes = resultType.getElementTypeBitWidth() / 8;
  config.vectorStores = n * outBytes % 16 == 0;

  // Scale blocks along M (N) and K of each operand.
  SmallVector<int64_t> aBlock =
      op.getLhsGranularity().getBlockShape(lhsType.getShape());
  SmallVector<int64_t> bBlock =
      op.getRhsGranularity().getBlockShape(rhsType.getShape());
  int64_t aRows = aBlock[gemm.aKMajor ? 0 : 1];
  int64_t aK = aBlock[gemm.aKMajor ? 1 : 0];
  int64_t bRows = bBlock[gemm.bKMajor ? 0 : 1];
  int64_t bK = bBlock[gemm.bKMajor ? 1 : 0];
  gemm.aRowsPerScale = aRows;
  gemm.bRowsPerScale = bRows;
  Type scaleElement =
      cast<RankedTensorType>(op.getLhsScale().getType()).getElementType();
  bool e8m0 = isa<Float8E8M0FNUType>(scaleElement);
  bool e4m3 = isa<Float8E4M3FNType>(scaleElement);
  bool globals = op.getLhsGlobalScale() && op.getRhsGlobalScale();
  std::string scaleType;
  llvm::raw_string_ostream(scaleType) << "'" << scaleElement << "'";
  // The declared block along K (a 1x32 block stays 32 when K is 16).
  auto declaredK = [](GranularityAttr granularity, bool kLast,
                      int64_t clamped) {
    // Blocks name the trailing dimensions; K is the last or the one before.
    ArrayRef<int64_t> block = granularity.getBlock();
    size_t fromEnd = kLast ? 0 : 1;
    int64_t declared =
        block.size() > fromEnd ? block[block.size() - 1 - fromEnd] : 1;
    return declared > 0 ? declared : clamped;
  };
  bool blockTypes = e8m0 || e4m3;
  if (!blockTypes && aRows >= m && aK >= k && bRows >= n && bK >= k) {
    config.scaling = GemmScaling::Tensor;
  } else if (!blockTypes && aRows == 1 && aK >= k && bRows == 1 && bK >= k) {
    config.scaling = GemmScaling::RowCol;
  } else if (blockTypes && aK == bK && aRows == 1 &&
             (bRows == 1 || bRows == bK)) {
    config.scaling = GemmScaling::Block;
    config.scaleBlock = declaredK(op.getLhsGranularity(), gemm.aKMajor, aK);
    config.e8m0Scales = e8m0;
    config.globalScales = globals;
  } else {
    return fail("no sm_100a kernel scales A by " +
                formatGranularity(op.getLhsGranularity()) + " and B by " +
                formatGranularity(op.getRhsGranularity()) + " with " +
                scaleType +
                " scales; supported: both per tensor or both per row along "
                "K (f32, in the epilogue), MXFP8 (e8m0 1x32, B 1x32 or "
                "32x32) and NVFP4 (e4m3 1x16, B 1x16 or 16x16) block scales");
  }
  if ((op.getLhsGlobalScale() || op.getRhsGlobalScale()) &&
      !config.globalScales)
    return fail("global scales need e4m3 block scales (NVFP4) on both "
                "operands");
  config.blockN = config.scaling == GemmScaling::Block || n > 64 ? 128 : 64;
  if (failed(config.verify(reason)))
    return failure();
  return gemm;
}

void PlanBuilder::collectTcgen05ScaleReads() {
  func.walk([&](ScaledMatmulOp op) {
    std::string reason;
    FailureOr<SM100Gemm> gemm = planSM100Gemm(op, reason);
    if (failed(gemm) || gemm->config.scaling != GemmScaling::Block)
      return;
    int64_t kBlocks = llvm::divideCeil(gemm->k, gemm->config.scaleBlock);
    int64_t stageKBlocks = gemm->config.getStageKBlocks();
    tcgen05ScaleReads[op.getLhsScale()].push_back(
        {{gemm->m, kBlocks, stageKBlocks}, gemm->aRowsPerScale, gemm->aKMajor});
    tcgen05ScaleReads[op.getRhsScale()].push_back(
        {{gemm->n, kBlocks, stageKBlocks}, gemm->bRowsPerScale, gemm->bKMajor});
  });
}

std::optional<std::pair<Tcgen05ScaleLayout, bool>>
PlanBuilder::getDirectTcgen05Scales(Value scale, bool viaTransposes,
                                    int64_t blockRows, int64_t blockCols) {
  SmallVector<Value> read;
  if (viaTransposes)
    for (Operation *user : scale.getUsers())
      read.push_back(user->getResult(0));
  else
    read.push_back(scale);
  std::optional<Tcgen05ScaleRead> common;
  std::optional<bool> kAlongCols;
  for (Value value : read) {
    auto it = tcgen05ScaleReads.find(value);
    if (it == tcgen05ScaleReads.end())
      return std::nullopt;
    // Every use is one of the recorded GEMM reads.
    int64_t uses = llvm::range_size(value.getUses());
    if (uses != int64_t(it->second.size()))
      return std::nullopt;
    for (const Tcgen05ScaleRead &r : it->second) {
      bool along = r.kMajor != viaTransposes;
      if (common &&
          (common->layout.rows != r.layout.rows ||
           common->layout.kBlocks != r.layout.kBlocks ||
           common->layout.stageKBlocks != r.layout.stageKBlocks ||
           common->rowsPerScale != r.rowsPerScale || *kAlongCols != along))
        return std::nullopt;
      common = r;
      kAlongCols = along;
    }
  }
  if (!common)
    return std::nullopt;
  // The quantization's blocks are the GEMM's: one row (or a square) across
  // one k-block.
  if ((*kAlongCols ? blockRows : blockCols) != common->rowsPerScale)
    return std::nullopt;
  return std::make_pair(common->layout, *kAlongCols);
}

LogicalResult PlanBuilder::lowerScaledMatmulSM100(ScaledMatmulOp op) {
  std::string reason;
  FailureOr<SM100Gemm> planned = planSM100Gemm(op, reason);
  if (failed(planned))
    return op.emitError() << "fp8 GPU lowering: " << reason;
  const SM100Gemm &gemm = *planned;
  const GemmSM100Config &config = gemm.config;
  int64_t m = gemm.m, n = gemm.n, k = gemm.k;
  int64_t a = bufferOf(op.getLhs()), b = bufferOf(op.getRhs());
  // The kernel reads K-major operands; quantizations store MN-major reads
  // K-major (kMajorCopies).
  for (auto [name, kMajor, buffer] :
       {std::tuple{"A", gemm.aKMajor, a}, std::tuple{"B", gemm.bKMajor, b}})
    if (kMajor == kMajorCopies.contains(buffer))
      return op.emitError()
             << "fp8 GPU lowering: operand " << name
             << " is stored MN-major; the sm_100a GEMM reads K-major operands "
                "(MN-major tcgen05 descriptors are not generated): quantize "
                "it in the graph, which stores it K-major, or pass "
             << (StringRef(name) == "A" ? "A as [M, K]"
                                        : "B as [N, K] (transpose_rhs)");

  OpBuilder builder(kernels.getBody(), kernels.getBody()->end());
  LLVM::LLVMFuncOp kernel = buildGemmSM100Kernel(builder, op.getLoc(), config);

  int64_t sa, sb;
  if (config.scaling == GemmScaling::Block) {
    int64_t kBlocks = llvm::divideCeil(k, config.scaleBlock);
    sa = getTcgen05Scales(op.getLhsScale(), gemm.aKMajor,
                          {m, kBlocks, config.getStageKBlocks()},
                          gemm.aRowsPerScale);
    sb = getTcgen05Scales(op.getRhsScale(), gemm.bKMajor,
                          {n, kBlocks, config.getStageKBlocks()},
                          gemm.bRowsPerScale);
  } else {
    sa = bufferOf(op.getLhsScale());
    sb = bufferOf(op.getRhsScale());
  }
  int64_t bits =
      cast<RankedTensorType>(op.getLhs().getType()).getElementTypeBitWidth();
  int64_t c = bufferOf(op.getResult());
  SmallVector<Attribute> params{
      tensorMapParam(a, m, k, GemmSM100Config::kBlockM, config.getStageK(),
                     bits),
      tensorMapParam(b, n, k, config.blockN, config.getStageK(), bits),
      bufferParam(c), bufferParam(sa), bufferParam(sb)};
  if (Value bias = op.getBias())
    params.push_back(bufferParam(bufferOf(bias)));
  if (config.globalScales)
    params.append({bufferParam(bufferOf(op.getLhsGlobalScale())),
                   bufferParam(bufferOf(op.getRhsGlobalScale()))});
  appendResultParams(op, params);
  params.append({i32Param(m), i32Param(n), i32Param(k)});
  int64_t tiles = llvm::divideCeil(m, GemmSM100Config::kBlockM) *
                  llvm::divideCeil(n, config.blockN);
  addKernelLaunch(kernel.getName(), {std::min(tiles, numSMs), 1, 1},
                  {GemmSM100Config::kThreads, 1, 1},
                  config.getSharedMemoryBytes(), params,
                  /*persistent=*/true);
  return success();
}

int64_t PlanBuilder::getTcgen05Scales(Value scale, bool kMajor,
                                      const Tcgen05ScaleLayout &layout,
                                      int64_t rowsPerScale) {
  int64_t source = bufferOf(scale);
  auto written = tcgen05ScaleBuffers.find(source);
  if (written != tcgen05ScaleBuffers.end() &&
      written->second.rows == layout.rows &&
      written->second.kBlocks == layout.kBlocks &&
      written->second.stageKBlocks == layout.stageKBlocks)
    return source;
  // Strides of (row block, k-block) in the buffer as stored: the type's
  // [row blocks, k-blocks] (or [k-blocks, row blocks] for an operand that is
  // MN-major in the op), dimensions swapped in a K-major copy.
  auto type = cast<RankedTensorType>(scale.getType());
  int64_t d0 = type.getDimSize(0), d1 = type.getDimSize(1);
  bool swapped = kMajorCopies.contains(source);
  int64_t rowStride, kStride;
  if (kMajor != swapped) {
    // K along the stored inner dimension.
    rowStride = swapped ? d0 : d1;
    kStride = 1;
  } else {
    rowStride = 1;
    kStride = swapped ? d0 : d1;
  }
  auto layoutType =
      RankedTensorType::get({layout.getBytes()}, IntegerType::get(ctx, 8));
  int64_t staged = addBuffer("temp", layoutType,
                             {named("layout", str("tcgen05_scale_factors"))});
  tcgen05ScaleBuffers[staged] = layout;
  OpBuilder builder(kernels.getBody(), kernels.getBody()->end());
  ScaleLayoutConfig config;
  LLVM::LLVMFuncOp kernel =
      buildScaleLayoutKernel(builder, scale.getLoc(), config);
  addKernelLaunch(kernel.getName(),
                  {int64_t(llvm::divideCeil(layout.getBytes(),
                                            ScaleLayoutConfig::kThreads)),
                   1, 1},
                  {ScaleLayoutConfig::kThreads, 1, 1}, /*sharedBytes=*/0,
                  {bufferParam(source), bufferParam(staged),
                   i32Param(layout.rows), i32Param(layout.kBlocks),
                   i32Param(rowsPerScale), i32Param(rowStride),
                   i32Param(kStride), i32Param(layout.getKChunks()),
                   i32Param(layout.getBytes())},
                  /*persistent=*/false);
  return staged;
}

/// Whether every user of `value` is a 2-D transpose of it.
bool readOnlyTransposed(Value value) {
  if (value.use_empty())
    return false;
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    auto transpose = dyn_cast<linalg::TransposeOp>(user);
    return transpose && transpose.getInput() == value &&
           transpose.getPermutation() == ArrayRef<int64_t>{1, 0};
  });
}

/// Whether transposing `value` keeps its bytes in place.
bool isTransposeInvariant(Value value) {
  return llvm::count_if(cast<RankedTensorType>(value.getType()).getShape(),
                        [](int64_t d) { return d != 1; }) <= 1;
}

/// Whether `data` and its `scale` are read only as an MN-major operand of
/// scaled matmuls (A with transpose_lhs, B without transpose_rhs), with that
/// operand's scales.
bool readOnlyMNMajor(Value data, Value scale) {
  if (data.use_empty())
    return false;
  SmallVector<Operation *> readers;
  for (OpOperand &use : data.getUses()) {
    auto matmul = dyn_cast<ScaledMatmulOp>(use.getOwner());
    if (!matmul)
      return false;
    bool lhs = &use == &matmul.getLhsMutable();
    if (lhs ? !matmul.getTransposeLhs() || matmul.getLhsScale() != scale
            : matmul.getRhs() != data || matmul.getTransposeRhs() ||
                  matmul.getRhsScale() != scale)
      return false;
    readers.push_back(matmul);
  }
  return llvm::all_of(scale.getUsers(), [&](Operation *user) {
    return llvm::is_contained(readers, user);
  });
}

LogicalResult PlanBuilder::lowerDynamicQuantize(DynamicQuantizeOp op) {
  auto inputType = op.getInput().getType();
  if (inputType.getRank() != 2)
    return op.emitError("fp8 GPU lowering: only matrices are quantized on "
                        "the GPU; collapse the leading dimensions first");
  // NVFP4: the amax of the whole tensor first; every copy's kernel derives
  // the global scale from it.
  QuantizeExtras extras;
  if (Value global = op.getGlobalScale()) {
    if (chip != Chip::SM100a)
      return op.emitError("fp8 GPU lowering: two-level (NVFP4) quantization "
                          "produces E2M1 codes, which only sm_100a "
                          "multiplies");
    if (failed(addGlobalAmaxLaunches(op, extras)))
      return failure();
    extras.globalScale = bufferOf(global);
  }

  // A copy read only through transposes is stored transposed: the K-major
  // operand of a Hopper GEMM, written by the quantization (cast+transpose).
  auto quantizeCopy = [&](GranularityAttr granularity, Value data, Value scale,
                          bool transposed) -> LogicalResult {
    int64_t dataBuffer, scaleBuffer;
    auto isReturned = [](Value value) {
      return llvm::any_of(value.getUsers(), [](Operation *user) {
        return isa<func::ReturnOp>(user);
      });
    };
    bool returned =
        isReturned(data) || llvm::any_of(data.getUsers(), [&](Operation *user) {
          return isa<linalg::TransposeOp>(user) &&
                 isReturned(user->getResult(0));
        });
    if (!transposed && readOnlyTransposed(data) &&
        (isTransposeInvariant(scale) || readOnlyTransposed(scale))) {
      transposed = true;
      dataBuffer = -1;
      for (Operation *user : data.getUsers()) {
        Value result = user->getResult(0);
        if (dataBuffer < 0)
          dataBuffer = bufferOf(result);
        buffers[result] = dataBuffer;
        foldedTransposes.insert(user);
      }
      if (isTransposeInvariant(scale)) {
        scaleBuffer = bufferOf(scale);
      } else {
        scaleBuffer = -1;
        for (Operation *user : scale.getUsers()) {
          Value result = user->getResult(0);
          if (scaleBuffer < 0)
            scaleBuffer = bufferOf(result);
          buffers[result] = scaleBuffer;
          foldedTransposes.insert(user);
        }
      }
    } else if (!transposed && chip == Chip::SM100a &&
               readOnlyMNMajor(data, scale)) {
      // The sm_100a GEMM reads K-major operands: store the copy transposed
      // (its buffer keeps the value's type, dimensions swapped).
      transposed = true;
      dataBuffer = bufferOf(data);
      scaleBuffer = bufferOf(scale);
      kMajorCopies.insert(dataBuffer);
      kMajorCopies.insert(scaleBuffer);
      for (int64_t buffer : {dataBuffer, scaleBuffer}) {
        NamedAttrList list(cast<DictionaryAttr>(bufferAttrs[buffer]));
        list.set("layout", str("transposed"));
        bufferAttrs[buffer] = list.getDictionary(ctx);
      }
    } else {
      dataBuffer = bufferOf(data);
      scaleBuffer = bufferOf(scale);
    }
    QuantizeConfig config;
    config.format =
        *getFormat(cast<RankedTensorType>(data.getType()).getElementType());
    config.rule = op.getRule();
    config.overflow = op.getOverflow();
    config.nanPolicy = op.getNanPolicy();
    config.e8m0Scales = isa<Float8E8M0FNUType>(
        cast<RankedTensorType>(scale.getType()).getElementType());
    QuantizeExtras copyExtras = extras;
    if (chip == Chip::SM100a) {
      auto type = op.getInput().getType();
      SmallVector<int64_t> block = granularity.getBlockShape(type.getShape());
      bool viaTransposes = !scale.use_empty() &&
                           foldedTransposes.contains(*scale.getUsers().begin());
      if (auto direct = getDirectTcgen05Scales(scale, viaTransposes, block[0],
                                               block[1])) {
        copyExtras.tcgen05Scales = direct->first;
        copyExtras.kAlongCols = direct->second;
      }
    }
    return addQuantizeLaunches(op, op.getInput(), granularity, config,
                               dataBuffer, scaleBuffer, transposed, returned,
                               /*givenScales=*/-1, /*amaxOnly=*/false,
                               copyExtras);
  };
  if (failed(quantizeCopy(op.getGranularity(), op.getData(), op.getScale(),
                          /*transposed=*/false)))
    return failure();
  if (GranularityAttr col = op.getColGranularityAttr())
    return quantizeCopy(col, op.getColData(), op.getColScale(),
                        op.getTransposed());
  return success();
}

LogicalResult PlanBuilder::addGlobalAmaxLaunches(DynamicQuantizeOp op,
                                                 QuantizeExtras &extras) {
  extras.globalAmax =
      addBuffer("temp", RankedTensorType::get({1, 1}, Float32Type::get(ctx)));
  QuantizeConfig config;
  config.nanPolicy = op.getNanPolicy();
  return addQuantizeLaunches(op, op.getInput(), GranularityAttr::getTensor(ctx),
                             config, extras.globalAmax, extras.globalAmax,
                             /*transposed=*/false, /*returned=*/false,
                             /*givenScales=*/-1, /*amaxOnly=*/true);
}

LogicalResult PlanBuilder::addQuantizeLaunches(
    Operation *op, Value inputValue, GranularityAttr granularity,
    QuantizeConfig config, int64_t data, int64_t scale, bool transposed,
    bool returned, int64_t givenScales, bool amaxOnly,
    const QuantizeExtras &extras) {
  auto inputType = cast<RankedTensorType>(inputValue.getType());
  if (inputType.getRank() != 2)
    return op->emitError("fp8 GPU lowering: only matrices are quantized on "
                         "the GPU; collapse the leading dimensions first");
  int64_t input = bufferOf(inputValue);
  int64_t rows = inputType.getDimSize(0), cols = inputType.getDimSize(1);
  SmallVector<int64_t> block = granularity.getBlockShape(inputType.getShape());
  int64_t blockRows = std::min(block[0], rows);
  int64_t blockCols = std::min(block[1], cols);

  Type element = inputType.getElementType();
  if (element.isF32())
    config.input = WideElement::F32;
  else if (element.isBF16())
    config.input = WideElement::BF16;
  else if (element.isF16())
    config.input = WideElement::F16;
  else
    return op->emitError() << "fp8 GPU lowering: " << element
                           << " inputs are not quantized on the GPU";
  config.transposed = transposed;
  config.twoLevel = extras.globalAmax >= 0;
  config.tcgen05Scales = extras.tcgen05Scales.has_value();
  config.scalesKAlongCols = extras.kAlongCols;
  // The part of a block in one tile; a block spanning the whole extent
  // covers the tile's extent.
  auto tilePart = [](int64_t blockExtent, int64_t extent, int64_t tile) {
    if (blockExtent == extent || blockExtent % tile == 0)
      return tile;
    return blockExtent;
  };
  config.tileBlockRows = tilePart(blockRows, rows, QuantizeConfig::kTileRows);
  config.tileBlockCols = tilePart(blockCols, cols, QuantizeConfig::kTileCols);
  config.fused = (blockRows <= QuantizeConfig::kTileRows ||
                  (blockRows == rows && rows <= QuantizeConfig::kTileRows)) &&
                 (blockCols <= QuantizeConfig::kTileCols ||
                  (blockCols == cols && cols <= QuantizeConfig::kTileCols));
  if (givenScales >= 0 || amaxOnly)
    config.fused = false;
  if (amaxOnly)
    config.phase = QuantizeConfig::Phase::Amax;
  config.givenScales = givenScales >= 0;
  // A whole-extent block inside one tile: one block per tile.
  if (config.fused && blockRows == rows)
    config.tileBlockRows = QuantizeConfig::kTileRows;
  if (config.fused && blockCols == cols)
    config.tileBlockCols = QuantizeConfig::kTileCols;
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  config.vectorLoads = cols * elementBytes % 16 == 0;
  // Rows of codes not a multiple of 16 bytes are padded for TMA (the pad is
  // never read: TMA fills reads past the extent with zeros). E2M1 codes are
  // packed, 32 to 16 bytes.
  const FormatInfo &info = getFormatInfo(config.format);
  int64_t perRow16 = 128 / (1 + info.exponentBits + info.mantissaBits);
  int64_t rowLength = transposed ? rows : cols;
  int64_t pitch = rowLength;
  auto dataEntry = cast<DictionaryAttr>(bufferAttrs[data]);
  if (rowLength % perRow16 != 0 && !returned && !amaxOnly &&
      dataEntry.getAs<StringAttr>("kind").getValue() == "temp") {
    pitch = llvm::alignTo(rowLength, perRow16);
    pitches[data] = pitch;
    NamedAttrList list(dataEntry);
    list.set("pitch", i64(pitch));
    list.set("bytes", i64((transposed ? cols : rows) * pitch * 16 / perRow16));
    bufferAttrs[data] = list.getDictionary(ctx);
  }
  config.vectorStores = pitch % perRow16 == 0;
  if (extras.tcgen05Scales) {
    // The scale buffer takes the GEMM's layout, padding zero-filled.
    const Tcgen05ScaleLayout &layout = *extras.tcgen05Scales;
    NamedAttrList list(cast<DictionaryAttr>(bufferAttrs[scale]));
    list.set("bytes", i64(layout.getBytes()));
    list.set("layout", str("tcgen05_scale_factors"));
    bufferAttrs[scale] = list.getDictionary(ctx);
    tcgen05ScaleBuffers[scale] = layout;
    if (layout.getBytes() != layout.rows * layout.kBlocks)
      addFill(scale, 0);
  }
  std::string reason;
  if (failed(config.verify(reason)))
    return op->emitError() << "fp8 GPU lowering: quantizing by "
                           << formatGranularity(granularity) << ": " << reason;

  OpBuilder builder(kernels.getBody(), kernels.getBody()->end());
  int64_t tiles = int64_t(llvm::divideCeil(rows, QuantizeConfig::kTileRows) *
                          llvm::divideCeil(cols, QuantizeConfig::kTileCols));
  SmallVector<Attribute> shape{i32Param(rows), i32Param(cols),
                               i32Param(blockRows), i32Param(blockCols)};
  int64_t amax = input; // unused by fused kernels
  if (config.twoLevel) {
    amax = extras.globalAmax;
  } else if (givenScales >= 0) {
    amax = givenScales;
  } else if (!config.fused) {
    auto amaxType =
        RankedTensorType::get({int64_t(llvm::divideCeil(rows, blockRows)),
                               int64_t(llvm::divideCeil(cols, blockCols))},
                              Float32Type::get(ctx));
    amax = amaxOnly ? data : addBuffer("temp", amaxType);
    addFill(amax, 0);
    QuantizeConfig amaxConfig = config;
    amaxConfig.phase = QuantizeConfig::Phase::Amax;
    LLVM::LLVMFuncOp kernel =
        buildQuantizeKernel(builder, op->getLoc(), amaxConfig);
    SmallVector<Attribute> params{bufferParam(input), bufferParam(amax)};
    params.append(shape);
    addKernelLaunch(kernel.getName(), {tiles, 1, 1},
                    {QuantizeConfig::kThreads, 1, 1},
                    amaxConfig.getSharedMemoryBytes(), params,
                    /*persistent=*/false);
  }
  if (amaxOnly)
    return success();
  LLVM::LLVMFuncOp kernel = buildQuantizeKernel(builder, op->getLoc(), config);
  SmallVector<Attribute> params{bufferParam(input), bufferParam(amax),
                                bufferParam(data), bufferParam(scale)};
  params.append(shape);
  params.push_back(i32Param(pitch));
  if (config.twoLevel)
    params.push_back(bufferParam(extras.globalScale));
  if (extras.tcgen05Scales)
    params.push_back(i32Param(extras.tcgen05Scales->getKChunks()));
  addKernelLaunch(kernel.getName(), {tiles, 1, 1},
                  {QuantizeConfig::kThreads, 1, 1},
                  config.getSharedMemoryBytes(), params, /*persistent=*/false);
  return success();
}

int64_t PlanBuilder::stateBuffer(Operation *user, StringRef name) {
  auto it = states.find(name);
  if (it != states.end())
    return it->second;
  auto global = SymbolTable::lookupNearestSymbolFrom<ml_program::GlobalOp>(
      user, StringAttr::get(ctx, name));
  auto type = global ? dyn_cast<RankedTensorType>(global.getType()) : nullptr;
  auto value = global
                   ? dyn_cast_or_null<DenseElementsAttr>(global.getValueAttr())
                   : nullptr;
  if (!type || !type.hasStaticShape() || !value) {
    user->emitError() << "fp8 GPU lowering: global @" << name
                      << " needs a statically shaped tensor type and an "
                         "initial value to become a state buffer";
    return -1;
  }
  int64_t id = addBuffer("state", type,
                         {named("value", value), named("name", str(name))});
  states[name] = id;
  return id;
}

LogicalResult PlanBuilder::lowerQuantize(QuantizeOp op) {
  if (op.getGlobalScale() || op.getRbits() || op.getRounding() != Rounding::RNE)
    return op.emitError("fp8 GPU lowering: quantization by given scales is "
                        "generated for round-to-nearest-even with f32 "
                        "scales only");
  auto scaleType = cast<RankedTensorType>(op.getScale().getType());
  if (!scaleType.getElementType().isF32())
    return op.emitError("fp8 GPU lowering: quantization by given scales "
                        "takes f32 encode scales");
  QuantizeConfig config;
  config.format = *getFormat(op.getType().getElementType());
  config.overflow = op.getOverflow();
  Value result = op.getResult();
  bool returned = llvm::any_of(
      result.getUsers(), [](Operation *u) { return isa<func::ReturnOp>(u); });
  // Read only through transposes: stored transposed (cast+transpose).
  bool transposed = readOnlyTransposed(result);
  int64_t data = -1;
  if (transposed) {
    for (Operation *user : result.getUsers()) {
      if (data < 0)
        data = bufferOf(user->getResult(0));
      buffers[user->getResult(0)] = data;
      foldedTransposes.insert(user);
      returned |= llvm::any_of(user->getResult(0).getUsers(), [](Operation *u) {
        return isa<func::ReturnOp>(u);
      });
    }
  } else {
    data = bufferOf(result);
  }
  return addQuantizeLaunches(op, op.getInput(), op.getGranularity(), config,
                             data, data, transposed, returned,
                             bufferOf(op.getScale()));
}

LogicalResult PlanBuilder::lowerAmax(AmaxOp op) {
  QuantizeConfig config;
  config.nanPolicy = op.getNanPolicy();
  int64_t amax = bufferOf(op.getResult());
  return addQuantizeLaunches(op, op.getInput(), op.getGranularity(), config,
                             amax, amax, /*transposed=*/false,
                             /*returned=*/false, /*givenScales=*/-1,
                             /*amaxOnly=*/true);
}

LogicalResult PlanBuilder::lowerUpdateDelayedScale(UpdateDelayedScaleOp op) {
  DelayedScaleConfig config;
  config.format = op.getFormat();
  config.algo = op.getAlgo();
  config.margin = op.getMargin();
  config.zeroAmax = op.getZeroAmax();
  OpBuilder builder(kernels.getBody(), kernels.getBody()->end());
  LLVM::LLVMFuncOp kernel =
      buildDelayedScaleKernel(builder, op.getLoc(), config);
  int64_t length = op.getHistory().getType().getDimSize(0);
  SmallVector<Attribute> params{bufferParam(bufferOf(op.getAmax())),
                                bufferParam(bufferOf(op.getHistory())),
                                bufferParam(bufferOf(op.getScale())),
                                bufferParam(bufferOf(op.getNewHistory())),
                                bufferParam(bufferOf(op.getNewScale())),
                                bufferParam(bufferOf(op.getNewScaleInv())),
                                i32Param(length)};
  addKernelLaunch(kernel.getName(), {1, 1, 1},
                  {DelayedScaleConfig::kThreads, 1, 1}, 32, params,
                  /*persistent=*/false);
  return success();
}

/// The PTX ISA version (88 for 8.8) that `target` compiles to: its +ptxNN
/// feature, else the NVPTX backend's default, the first version knowing the
/// chip (8.0 for sm_90a, 8.6 for sm_100a).
unsigned getPtxVersion(NVVM::NVVMTargetAttr target) {
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
std::optional<std::pair<unsigned, std::string>>
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

/// Checks that every NVVM target of `kernels` can compile its kernels: the
/// chip of the lowering, and a PTX ISA version with every instruction used.
/// LLVM's NVPTX backend aborts ("Cannot select") instead of diagnosing.
LogicalResult checkKernelTargets(gpu::GPUModuleOp kernels, Chip chip) {
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

struct ConvertFP8ToGPUPass
    : fp8::impl::ConvertFP8ToGPUBase<ConvertFP8ToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<Chip> parsed = parseChip(chip);
    if (!parsed) {
      mlir::emitError(module.getLoc())
          << "convert-fp8-to-gpu: " << describeUnsupportedChip(chip);
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> functions;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        functions.push_back(func);
    if (functions.empty())
      return;

    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModule);
    if (!kernels) {
      auto target = NVVM::NVVMTargetAttr::get(
          &getContext(), /*optLevel=*/3, "nvptx64-nvidia-cuda",
          getChipName(*parsed), getPtxFeatures(*parsed));
      kernels =
          gpu::GPUModuleOp::create(builder, module.getLoc(), kKernelModule,
                                   builder.getArrayAttr({target}));
    }
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());

    NamedAttrList plans;
    if (auto existing = module->getAttrOfType<DictionaryAttr>(kPlansAttr))
      plans.append(existing.getValue());
    for (func::FuncOp func : functions) {
      PlanBuilder plan(func, kernels, *parsed, numSMs);
      if (failed(plan.build()))
        return signalPassFailure();
      plans.set(func.getName(), plan.getPlan());
      func.erase();
    }
    module->setAttr(kPlansAttr, plans.getDictionary(&getContext()));
    if (failed(checkKernelTargets(kernels, *parsed)))
      return signalPassFailure();
  }
};

} // namespace
