//===- PlanQuantize.cpp - Launches of quantizations and amaxes ------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// fp8.dynamic_quantize, fp8.quantize and fp8.amax become the quantize
// kernels of QuantizeConfig: one fused kernel when a scale block lies inside
// one tile, else an amax kernel then a quantize kernel. A copy read only
// through transposes is written transposed (cast+transpose). The row-wise
// and column-wise copies of one dynamic_quantize come from one read of the
// input where a paired kernel can write both (tryAddPairLaunches). Tensors of
// higher rank are matrices with their leading dimensions folded into the
// rows, or batches of matrices (see getMatrixView).
// fp8.compute_scale, between an fp8.amax and an fp8.quantize, is a kernel of
// its own (ComputeScaleConfig).
// An elementwise op whose result only quantizations read is computed by
// their kernels where they load their input (planQuantizePrologue): its
// result is never stored.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Utils/SoftFloat.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// The launches of one quantization (or amax) of a matrix.
struct QuantizeLaunch {
  Operation *op = nullptr;
  Value input;
  GranularityAttr granularity;
  /// Formats, rule and policies; the rest is derived from the shapes.
  QuantizeConfig config;
  /// The buffers of the codes and the scales (the amax buffer for
  /// `amaxOnly`), stored transposed if `transposed`.
  int64_t data = -1, scale = -1;
  bool transposed = false;
  /// Read dense (hasDenseReader: a result of the function, an elementwise
  /// op): its rows are not padded.
  bool unpadded = false;
  /// Quantize by these scales instead of measuring (f32 encode scales, or
  /// E8M0 or E4M3 codes); E4M3 codes under the global encode scale
  /// `givenGlobal`, stochastically rounded with `randomBits` if given.
  std::optional<int64_t> givenScales, givenGlobal, randomBits;
  /// Only the amax, into `data`.
  bool amaxOnly = false;
  /// NVFP4: the buffers of the tensor's amax and of the global decode scale.
  std::optional<int64_t> globalAmax, globalScale;
  /// sm_100a: scales written in this layout, K along the input's columns
  /// if `kAlongCols`.
  std::optional<Tcgen05ScaleLayout> tcgen05Scales;
  bool kAlongCols = true;
  /// One matrix per grid row even where the leading dimensions could fold
  /// into the rows: the copy of a pair whose other copy is stored by matrix.
  bool byMatrix = false;
};

/// Whether an op reads the codes `value` dense, rather than by the pitch
/// their rows are stored with: anything but a GEMM's operand A or B (whose
/// tensor map strides by it) and a transpose (a layout kernel, which does,
/// or the quantization's own transposed copy). The function's return is
/// one: a result is stored dense.
bool hasDenseReader(Value value) {
  return llvm::any_of(value.getUses(), [](OpOperand &use) {
    return !isGemmOperand(use) && !isa<linalg::TransposeOp>(use.getOwner());
  });
}

/// Whether an op reads the result of any of `transposes` dense.
bool hasDenseReader(ArrayRef<Operation *> transposes) {
  return llvm::any_of(transposes, [](Operation *transpose) {
    return hasDenseReader(transpose->getResult(0));
  });
}

/// The users of `value` that are 2-D transposes of it, or, if `batched`,
/// also transposes of each matrix of a batch.
SmallVector<Operation *> getTransposeUsers(Value value, bool batched = false) {
  SmallVector<Operation *> transposes;
  for (Operation *user : value.getUsers()) {
    auto transpose = dyn_cast<linalg::TransposeOp>(user);
    if (!transpose || transpose.getInput() != value)
      continue;
    ArrayRef<int64_t> permutation = transpose.getPermutation();
    if (permutation == ArrayRef<int64_t>{1, 0} ||
        (batched && isLastTwoSwap(permutation)))
      transposes.push_back(user);
  }
  return transposes;
}

/// Whether every user of `value` is a transpose of it (of each matrix of a
/// batch).
bool readOnlyTransposed(Value value) {
  if (value.use_empty())
    return false;
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    auto transpose = dyn_cast<linalg::TransposeOp>(user);
    return transpose && transpose.getInput() == value &&
           isLastTwoSwap(transpose.getPermutation());
  });
}

/// A quantization as the kernels see it: `batches` row-major matrices of
/// [rows, cols], each in scale blocks of [blockRows, blockCols] (clamped to
/// the matrix).
struct MatrixView {
  int64_t batches = 1;
  int64_t rows = 0, cols = 0, blockRows = 0, blockCols = 0;
  /// One matrix per blockIdx.y (QuantizeConfig::batched).
  bool batched = false;
  /// The blocks span every matrix (per-tensor scales): the matrices share
  /// their amaxes and scales.
  bool sharedBlocks = false;

  /// The matrices as the rows of one matrix: shared blocks then span all
  /// of its rows.
  MatrixView foldBatches() const {
    MatrixView folded = *this;
    folded.rows *= batches;
    if (sharedBlocks)
      folded.blockRows = folded.rows;
    folded.batches = 1;
    folded.batched = folded.sharedBlocks = false;
    return folded;
  }
};

/// The matrices of quantizing `type` by `granularity` (a vector is a row).
/// The leading dimensions fold into the rows when that keeps every scale
/// block (per tensor, per row, along the last dimension, or of rows dividing
/// a matrix's); otherwise, and when each matrix is stored by itself
/// (`storedByMatrix`: transposed copies, scales in the tcgen05 layout of
/// each matrix), the matrices are a batch.
FailureOr<MatrixView> getMatrixView(Operation *op, RankedTensorType type,
                                    GranularityAttr granularity,
                                    bool storedByMatrix) {
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<int64_t> block = granularity.getBlockShape(shape);
  // Vectors and scalars are one row.
  while (shape.size() < 2) {
    shape.insert(shape.begin(), 1);
    block.insert(block.begin(), 1);
  }
  int64_t rank = shape.size();
  MatrixView view;
  view.rows = shape[rank - 2];
  view.cols = shape[rank - 1];
  view.blockRows = std::min(block[rank - 2], view.rows);
  view.blockCols = std::min(block[rank - 1], view.cols);
  int64_t batches = 1;
  bool perMatrix = true, spanning = true;
  for (int64_t i = 0; i < rank - 2; ++i) {
    batches *= shape[i];
    perMatrix &= block[i] == 1;
    spanning &= block[i] >= shape[i];
  }
  if (batches == 1)
    return view;
  // Blocks spanning the batch must span whole matrices too.
  spanning &= view.blockRows == view.rows;
  if (!perMatrix && !spanning)
    return op->emitError()
           << "fp8 GPU lowering: the scale blocks of "
           << formatGranularity(granularity) << " on " << formatShape(shape)
           << " span some of its matrices or parts of several; the quantize "
              "kernels take blocks inside one matrix or across all of them";
  view.batches = batches;
  view.sharedBlocks = spanning;
  if (!storedByMatrix && (spanning || view.rows % view.blockRows == 0))
    return view.foldBatches();
  // One grid row per matrix.
  constexpr int64_t kMaxGridY = 65535;
  if (batches > kMaxGridY)
    return op->emitError() << "fp8 GPU lowering: " << batches
                           << " matrices are quantized one per grid row, of "
                              "which there are at most "
                           << kMaxGridY;
  view.batched = true;
  return view;
}

/// Gives the results of `transposes` one buffer, marks them folded into the
/// quantization writing it, and returns the buffer.
int64_t foldTransposes(PlanBuilder &plan, ArrayRef<Operation *> transposes) {
  int64_t buffer = -1;
  for (Operation *transpose : transposes) {
    Value result = transpose->getResult(0);
    if (buffer < 0)
      buffer = plan.bufferOf(result);
    plan.setBuffer(result, buffer);
    plan.foldedTransposes.insert(transpose);
  }
  return buffer;
}

/// foldTransposes of every user of `value`, all transposes of it.
int64_t foldTransposesOf(PlanBuilder &plan, Value value) {
  return foldTransposes(plan, llvm::to_vector(value.getUsers()));
}

/// The layout in which `scale`, a result of `op` stored with its codes
/// `data` (transposed from the input if `transposed`), is written: the
/// row-major tensor, or the tcgen05 scale-factor layout that
/// fp8-assign-scale-layouts recorded. Those scales may only be read by
/// GEMMs (which check the layout) or returned.
LogicalResult getTcgen05Layout(PlanBuilder &plan, DynamicQuantizeOp op,
                               Value data, Value scale,
                               Tcgen05ScaleLayoutAttr attr, bool transposed,
                               QuantizeLaunch &q) {
  if (!attr)
    return success();
  if (plan.getChip() != Chip::SM100a)
    return op.emitError() << "fp8 GPU lowering: " << attr
                          << " is the scale layout of sm_100a GEMMs; the "
                          << getChipName(plan.getChip())
                          << " GEMM reads row-major scales";
  for (Operation *user : scale.getUsers()) {
    SmallVector<Operation *> readers{user};
    if (isa<linalg::TransposeOp>(user))
      readers.assign(user->getUsers().begin(), user->getUsers().end());
    for (Operation *reader : readers)
      if (!isa<ScaledMatmulOp, func::ReturnOp>(reader))
        return op.emitError() << "fp8 GPU lowering: scales stored in " << attr
                              << " are read by '" << reader->getName()
                              << "', which reads row-major scales";
  }
  // The layout of one matrix (of each, in a batch).
  auto dataType = cast<RankedTensorType>(data.getType());
  auto scaleType = cast<RankedTensorType>(scale.getType());
  int64_t kDim = attr.getKDim();
  int64_t lead = dataType.getRank() - 2;
  q.tcgen05Scales = Tcgen05ScaleLayout{dataType.getDimSize(lead + 1 - kDim),
                                       scaleType.getDimSize(lead + kDim),
                                       attr.getStageKBlocks()};
  // The kernel counts K along the input's columns or rows.
  q.kAlongCols = (kDim == 1) != transposed;
  return success();
}

/// What preparing a launch derives from its shapes: the matrices, the pitch
/// of the codes, and a batch's strides between the scales and the amaxes of
/// its matrices.
struct PreparedLaunch {
  MatrixView view;
  int64_t pitch = 0;
  int64_t scaleBatchStride = 0, amaxBatchStride = 0;
};

/// The prologue of a quantize kernel reading the result of `op`, an
/// elementwise op that planQuantizePrologue accepted.
QuantizePrologue getQuantizePrologue(linalg::LinalgOp op) {
  QuantizePrologue prologue;
  prologue.body = op.getBlock();
  int64_t cols =
      cast<RankedTensorType>(op->getResult(0).getType()).getDimSize(1);
  std::string reads;
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    QuantizePrologue::Input input;
    input.element = arg.getType();
    input.read = *getElementRead(op.getMatchingIndexingMap(&operand));
    input.argument = arg.getArgNumber();
    input.vectorLoads = input.read == ElementRead::Matrix &&
                        cols * getElementBytes(input.element) % 16 == 0;
    reads += "mrcs"[static_cast<int>(input.read)];
    if (input.vectorLoads)
      reads += "v";
    prologue.inputs.push_back(input);
  }
  prologue.tag = "_" + reads + "_" + getBodyDigest(*prologue.body);
  return prologue;
}

/// The arguments a launch quantizing `input` passes for its input: the
/// buffer of `input` (Input), or, when a prologue computes it, those of the
/// prologue's inputs (PrologueInput, in order).
struct InputArgs {
  InputArgs(PlanBuilder &plan, Value input) {
    if (Operation *producer = plan.quantizePrologues.lookup(input)) {
      // The operands its elementwise kernel would load (its parameters
      // but its result).
      SmallVector<Value> params = getElementwiseParams(producer);
      for (Value operand :
           ArrayRef(params).drop_back(producer->getNumResults()))
        prologueInputs.push_back(plan.bufferOf(operand));
      return;
    }
    this->input = plan.bufferOf(input);
  }
  /// The argument of `param`, Input or PrologueInput; each launch takes the
  /// prologue's inputs from the first.
  LaunchParam get(QuantizeParam param) {
    if (param == QuantizeParam::Input)
      return BufferParam{input};
    assert(param == QuantizeParam::PrologueInput && "not an input parameter");
    if (next == prologueInputs.size())
      next = 0;
    return BufferParam{prologueInputs[next++]};
  }
  /// A buffer the launch reads, for parameters its kernel ignores.
  int64_t getAnyBuffer() const {
    return input >= 0 ? input : prologueInputs.front();
  }
  int64_t input = -1;
  SmallVector<int64_t> prologueInputs;
  size_t next = 0;
};

/// buildQuantizeKernel; fails when the body of the kernel's prologue uses a
/// math function that has no GPU lowering without libdevice.
FailureOr<LLVM::LLVMFuncOp> buildQuantize(PlanBuilder &plan, Operation *op,
                                          const QuantizeConfig &config) {
  OpBuilder builder = plan.getKernelBuilder();
  LLVM::LLVMFuncOp kernel = buildQuantizeKernel(builder, op->getLoc(), config);
  if (!config.prologue)
    return kernel;
  Operation *left = findLibdeviceOp(kernel);
  if (!left)
    return kernel;
  InFlightDiagnostic diag =
      op->emitError() << "fp8 GPU lowering: the kernel of '" << op->getName()
                      << "' computes its input, and '" << left->getName()
                      << "' has no GPU lowering without libdevice";
  kernel.erase();
  return diag;
}

/// Completes `q.config` from the shapes, pads the rows of its codes and lays
/// out its tcgen05 scales, without adding launches.
FailureOr<PreparedLaunch> prepareLaunch(PlanBuilder &plan, QuantizeLaunch &q) {
  Operation *op = q.op;
  QuantizeConfig &config = q.config;
  auto inputType = cast<RankedTensorType>(q.input.getType());
  FailureOr<MatrixView> view =
      getMatrixView(op, inputType, q.granularity,
                    q.transposed || q.tcgen05Scales.has_value() || q.byMatrix);
  if (failed(view))
    return failure();
  PreparedLaunch prepared;
  prepared.view = *view;
  int64_t batches = view->batches;
  int64_t rows = view->rows, cols = view->cols;
  int64_t blockRows = view->blockRows, blockCols = view->blockCols;
  config.batched = view->batched;

  Type element = inputType.getElementType();
  std::optional<WideElement> wide = getWideElement(element);
  if (!wide)
    return op->emitError() << "fp8 GPU lowering: " << element
                           << " inputs are not quantized on the GPU";
  config.input = *wide;
  if (Operation *producer = plan.quantizePrologues.lookup(q.input))
    config.prologue = getQuantizePrologue(cast<linalg::LinalgOp>(producer));
  config.transposed = q.transposed;
  config.twoLevel = q.globalAmax.has_value() || q.givenGlobal.has_value();
  config.stochastic = q.randomBits.has_value();
  config.tcgen05Scales = q.tcgen05Scales.has_value();
  config.scalesKAlongCols = q.kAlongCols;
  // The part of a block in one tile: a block spanning the whole extent
  // covers the tile's extent, a block inside a tile is whole there, and the
  // blocks that straddle tiles (48 rows of a batch of 48-row matrices in
  // tiles of 32) are measured in parts that no two blocks share, the largest
  // dividing both the block and the tile.
  auto tilePart = [](int64_t blockExtent, int64_t extent, int64_t tile) {
    if (blockExtent == extent || blockExtent % tile == 0)
      return tile;
    if (tile % blockExtent == 0)
      return blockExtent;
    return std::gcd(blockExtent, tile);
  };
  config.tileBlockRows = tilePart(blockRows, rows, QuantizeConfig::kTileRows);
  config.tileBlockCols = tilePart(blockCols, cols, QuantizeConfig::kTileCols);
  // Fused: every block lies inside one tile.
  auto inTile = [](int64_t blockExtent, int64_t extent, int64_t tile) {
    return tile % blockExtent == 0 || (blockExtent == extent && extent <= tile);
  };
  config.fused = inTile(blockRows, rows, QuantizeConfig::kTileRows) &&
                 inTile(blockCols, cols, QuantizeConfig::kTileCols);
  if (q.givenScales || q.amaxOnly || view->sharedBlocks)
    config.fused = false;
  if (q.amaxOnly)
    config.phase = QuantizeConfig::Phase::Amax;
  config.givenScales = q.givenScales.has_value();
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
  int64_t perRow16 = 128 / info.getBitWidth();
  int64_t rowLength = q.transposed ? rows : cols;
  prepared.pitch = rowLength;
  PlanBuffer &data = plan.getBuffer(q.data);
  if (rowLength % perRow16 != 0 && !q.unpadded && !q.amaxOnly &&
      data.kind == PlanBuffer::Kind::Temp) {
    prepared.pitch = llvm::alignTo(rowLength, perRow16);
    data.pitch = prepared.pitch;
    data.bytes =
        batches * (q.transposed ? cols : rows) * prepared.pitch * 16 / perRow16;
  }
  config.vectorStores = prepared.pitch % perRow16 == 0;
  if (q.tcgen05Scales) {
    // The scale buffer takes the GEMM's layout, padding zero-filled.
    const Tcgen05ScaleLayout &layout = *q.tcgen05Scales;
    PlanBuffer &scale = plan.getBuffer(q.scale);
    scale.bytes = batches * layout.getBytes();
    scale.layout = PlanBuffer::Layout::Tcgen05ScaleFactors;
    plan.tcgen05ScaleBuffers[q.scale] = layout;
    if (layout.getBytes() != layout.rows * layout.kBlocks)
      plan.addFill(q.scale, 0);
  }
  std::string reason;
  if (failed(config.verify(reason)))
    return op->emitError() << "fp8 GPU lowering: quantizing by "
                           << formatGranularity(q.granularity) << ": "
                           << reason;
  // A batch's strides: its own blocks' amaxes and scales, or shared ones.
  // Given scales come in the amax buffer, in their own element size.
  int64_t blocks = int64_t(llvm::divideCeil(rows, blockRows) *
                           llvm::divideCeil(cols, blockCols));
  int64_t scaleBytes = config.e8m0Scales || config.twoLevel ? 1 : 4;
  if (config.batched && !view->sharedBlocks) {
    prepared.scaleBatchStride =
        q.tcgen05Scales ? q.tcgen05Scales->getBytes() : blocks * scaleBytes;
    if (!config.fused && !q.globalAmax)
      prepared.amaxBatchStride = blocks * (config.givenScales ? scaleBytes : 4);
  }
  return prepared;
}

/// The argument of `param` for the copy `q` (prepared as `p`) whose amaxes,
/// scales to apply or global amax are in buffer `amax`.
LaunchParam getCopyArg(const QuantizeLaunch &q, const PreparedLaunch &p,
                       int64_t amax, QuantizeParam param) {
  switch (param) {
  case QuantizeParam::Amax:
  case QuantizeParam::PairAmax:
    return BufferParam{amax};
  case QuantizeParam::Codes:
  case QuantizeParam::PairCodes:
    return BufferParam{q.data};
  case QuantizeParam::Scales:
  case QuantizeParam::PairScales:
    return BufferParam{q.scale};
  case QuantizeParam::Rows:
    return I32Param{p.view.rows};
  case QuantizeParam::Cols:
    return I32Param{p.view.cols};
  case QuantizeParam::BlockRows:
  case QuantizeParam::PairBlockRows:
    return I32Param{p.view.blockRows};
  case QuantizeParam::BlockCols:
  case QuantizeParam::PairBlockCols:
    return I32Param{p.view.blockCols};
  case QuantizeParam::Pitch:
  case QuantizeParam::PairPitch:
    return I32Param{p.pitch};
  case QuantizeParam::GlobalScale:
    return BufferParam{q.givenGlobal ? *q.givenGlobal : *q.globalScale};
  case QuantizeParam::RandomBits:
    return BufferParam{*q.randomBits};
  case QuantizeParam::ScaleKChunks:
  case QuantizeParam::PairScaleKChunks:
    return I32Param{q.tcgen05Scales->getKChunks()};
  case QuantizeParam::ScaleBatchStride:
  case QuantizeParam::PairScaleBatchStride:
    return I32Param{p.scaleBatchStride};
  case QuantizeParam::AmaxBatchStride:
  case QuantizeParam::PairAmaxBatchStride:
    return I32Param{p.amaxBatchStride};
  case QuantizeParam::Input:
  case QuantizeParam::PrologueInput:
    break;
  }
  llvm_unreachable("the input is the launch's, not a copy's");
}

/// The tiles of a grid over [rows, cols] in tiles of `tileRows` rows.
int64_t getTileCount(const MatrixView &view, int64_t tileRows) {
  return int64_t(llvm::divideCeil(view.rows, tileRows) *
                 llvm::divideCeil(view.cols, QuantizeConfig::kTileCols));
}

/// The configuration and grid of the kernel measuring the amaxes of
/// `config` (its Amax phase), prepared as `p`, in tiles of `tileRows` rows:
/// a grid-stride kernel of a few CTAs per SM when one block covers the
/// matrix, else a CTA per tile.
std::pair<QuantizeConfig, std::array<int64_t, 3>>
getAmaxLaunch(PlanBuilder &plan, const QuantizeConfig &config,
              const PreparedLaunch &p, int64_t tileRows) {
  constexpr int64_t kCTAsPerSM = 4;
  QuantizeConfig amaxConfig = config;
  amaxConfig.phase = QuantizeConfig::Phase::Amax;
  int64_t tiles = getTileCount(p.view, tileRows);
  const MatrixView &view = p.view;
  if (view.blockRows == view.rows && view.blockCols == view.cols &&
      !view.batched && !config.pair && tileRows == QuantizeConfig::kTileRows) {
    amaxConfig.wholeMatrixAmax = true;
    tiles = std::min(tiles, plan.getNumSMs() * kCTAsPerSM);
  }
  return {amaxConfig, {tiles, view.batches, 1}};
}

/// Whether the amax kernel `amaxConfig` of `q`, measuring into `amax`,
/// gives way to the kernel of a later column reduction of the same tensor
/// (planColumnSumsWithAmax): where it measures a per-tensor amax of the
/// input as stored.
FailureOr<bool> measuredByColumnSums(PlanBuilder &plan, const QuantizeLaunch &q,
                                     const QuantizeConfig &amaxConfig,
                                     int64_t amax) {
  if (!amaxConfig.wholeMatrixAmax || amaxConfig.prologue)
    return false;
  return planColumnSumsWithAmax(plan, q.op, q.input, amax,
                                amaxConfig.nanPolicy);
}

/// A zero-filled f32 buffer for the amaxes of the blocks of `q` (of each
/// matrix of a batch with its own).
int64_t addAmaxBuffer(PlanBuilder &plan, const PreparedLaunch &p) {
  const MatrixView &view = p.view;
  int64_t amaxBatches = p.amaxBatchStride ? view.batches : 1;
  auto amaxType = RankedTensorType::get(
      {amaxBatches * int64_t(llvm::divideCeil(view.rows, view.blockRows)),
       int64_t(llvm::divideCeil(view.cols, view.blockCols))},
      Float32Type::get(plan.getContext()));
  int64_t amax = plan.addBuffer(PlanBuffer::Kind::Temp, amaxType);
  plan.addFill(amax, 0);
  return amax;
}

/// Takes blocks of kPairTileRows rows (DeepSeek's 128 x 128 weight blocks)
/// whole into tiles of that many rows, so that one fused kernel measures and
/// quantizes them in one read instead of an amax pass first; the config
/// stays as it was when that cannot be.
void useTallTiles(const QuantizeLaunch &q, const PreparedLaunch &p,
                  QuantizeConfig &config) {
  constexpr int64_t kRows = QuantizeConfig::kPairTileRows;
  const MatrixView &view = p.view;
  if (config.fused || q.givenScales || q.amaxOnly || q.globalAmax ||
      q.tcgen05Scales || view.batched || view.sharedBlocks ||
      view.blockRows != kRows || view.blockCols > QuantizeConfig::kTileCols)
    return;
  QuantizeConfig tall = config;
  tall.tileRows = kRows;
  tall.tileBlockRows = kRows;
  tall.fused = true;
  std::string reason;
  if (succeeded(tall.verify(reason)))
    config = tall;
}

/// The launches of `q`, prepared as `p`: an amax kernel first unless the
/// quantize kernel is fused (in tall tiles where that makes it so) or given
/// its scales.
LogicalResult addPreparedLaunches(PlanBuilder &plan, const QuantizeLaunch &q,
                                  const PreparedLaunch &p) {
  QuantizeConfig config = q.config;
  useTallTiles(q, p, config);
  InputArgs inputArgs(plan, q.input);
  int64_t amax = inputArgs.getAnyBuffer(); // unused by fused kernels
  auto getArg = [&](QuantizeParam param) -> LaunchParam {
    if (param == QuantizeParam::Input || param == QuantizeParam::PrologueInput)
      return inputArgs.get(param);
    return getCopyArg(q, p, amax, param);
  };
  std::array<int64_t, 3> grid{getTileCount(p.view, config.tileRows),
                              p.view.batches, 1};
  if (q.globalAmax) {
    amax = *q.globalAmax;
  } else if (q.givenScales) {
    amax = *q.givenScales;
  } else if (!config.fused) {
    amax = q.amaxOnly ? q.data : addAmaxBuffer(plan, p);
    if (q.amaxOnly)
      plan.addFill(amax, 0);
    auto [amaxConfig, amaxGrid] =
        getAmaxLaunch(plan, config, p, QuantizeConfig::kTileRows);
    FailureOr<bool> measured = measuredByColumnSums(plan, q, amaxConfig, amax);
    if (failed(measured))
      return failure();
    if (!*measured) {
      FailureOr<LLVM::LLVMFuncOp> kernel =
          buildQuantize(plan, q.op, amaxConfig);
      if (failed(kernel))
        return failure();
      plan.addKernelLaunch(*kernel, amaxConfig, amaxGrid,
                           amaxConfig.getSharedMemoryBytes(), getArg,
                           /*persistent=*/false);
    }
  }
  if (q.amaxOnly)
    return success();
  FailureOr<LLVM::LLVMFuncOp> kernel = buildQuantize(plan, q.op, config);
  if (failed(kernel))
    return failure();
  plan.addKernelLaunch(*kernel, config, grid, config.getSharedMemoryBytes(),
                       getArg, /*persistent=*/false);
  return success();
}

LogicalResult addQuantizeLaunches(PlanBuilder &plan, QuantizeLaunch q) {
  FailureOr<PreparedLaunch> prepared = prepareLaunch(plan, q);
  if (failed(prepared))
    return failure();
  return addPreparedLaunches(plan, q, *prepared);
}

/// The rows of a tile of `tileRows` x kTileCols that the blocks of `q`
/// (prepared as `p`) cover there, if the tile holds them whole: a fused
/// kernel's block. Blocks of more rows than a sub-tile cover the tile.
std::optional<int64_t> getFusedTileBlockRows(const QuantizeLaunch &q,
                                             const PreparedLaunch &p,
                                             int64_t tileRows) {
  const MatrixView &view = p.view;
  if (q.config.fused)
    return q.config.tileBlockRows;
  // Blocks spanning the matrices of a batch lie in no one tile.
  if (view.sharedBlocks || tileRows == QuantizeConfig::kTileRows ||
      view.blockCols > QuantizeConfig::kTileCols)
    return std::nullopt;
  if (view.blockRows == tileRows ||
      (view.blockRows == view.rows && view.rows <= tileRows))
    return tileRows;
  return std::nullopt;
}

/// The Pair fields of a paired kernel whose column-wise copy is `copy` (the
/// inverse of QuantizeConfig::getPairCopy).
QuantizeConfig::Pair getPairFields(const QuantizeConfig &copy) {
  return QuantizeConfig::Pair{copy.format,        copy.tileBlockRows,
                              copy.tileBlockCols, copy.fused,
                              copy.transposed,    copy.vectorStores,
                              copy.tcgen05Scales, copy.scalesKAlongCols};
}

/// One copy of a launch: the quantization, as prepared, and the buffer of
/// its amaxes (or given scales).
struct LaunchCopy {
  const QuantizeLaunch &q;
  const PreparedLaunch &p;
  int64_t amax;
};

/// A launch of the kernel of `config` whose first copy is `first` and whose
/// pair's parameters (if any) are `second`'s, reading its input through
/// `inputArgs`.
LogicalResult addCopiesLaunch(PlanBuilder &plan, const QuantizeConfig &config,
                              std::array<int64_t, 3> grid, InputArgs &inputArgs,
                              LaunchCopy first, LaunchCopy second) {
  FailureOr<LLVM::LLVMFuncOp> kernel = buildQuantize(plan, first.q.op, config);
  if (failed(kernel))
    return failure();
  plan.addKernelLaunch(
      *kernel, config, grid, config.getSharedMemoryBytes(),
      [&](QuantizeParam param) -> LaunchParam {
        switch (param) {
        case QuantizeParam::Input:
        case QuantizeParam::PrologueInput:
          return inputArgs.get(param);
        case QuantizeParam::PairAmax:
        case QuantizeParam::PairCodes:
        case QuantizeParam::PairScales:
        case QuantizeParam::PairBlockRows:
        case QuantizeParam::PairBlockCols:
        case QuantizeParam::PairPitch:
        case QuantizeParam::PairScaleKChunks:
        case QuantizeParam::PairScaleBatchStride:
        case QuantizeParam::PairAmaxBatchStride:
          return getCopyArg(second.q, second.p, second.amax, param);
        default:
          return getCopyArg(first.q, first.p, first.amax, param);
        }
      },
      /*persistent=*/false);
  return success();
}

/// The remark saying whether the copies of `op` come from one read.
void remarkPair(DynamicQuantizeOp op, bool fused, StringRef detail) {
  remark::RemarkOpts opts = getFP8GPURemarkOpts(
      op, fused ? "quantize-pair-fused" : "quantize-pair-not-fused");
  std::string copies = llvm::formatv("row-wise {0} and column-wise {1} copies",
                                     formatGranularity(op.getGranularity()),
                                     formatGranularity(*op.getColGranularity()))
                           .str();
  if (fused)
    remark::passed(op.getLoc(), opts) << remark::add(
        "{0} written from one read of the input{1}", copies, detail.str());
  else
    remark::missed(op.getLoc(), opts)
        << remark::add("{0} each read the input: {1}", copies, detail.str());
}

/// The launches of both copies of a dynamic_quantize from one read of the
/// input: one paired kernel when each copy's blocks lie inside its tile,
/// after one amax pass over the input for the copies whose blocks do not
/// (shared by copies of the same blocks; `amaxPass` says whether there is
/// one). Fails without adding anything, with the reason, when a kernel
/// cannot pair them.
LogicalResult tryAddPairLaunches(PlanBuilder &plan, const QuantizeLaunch &rowQ,
                                 const PreparedLaunch &rowP,
                                 const QuantizeLaunch &colQ,
                                 const PreparedLaunch &colP,
                                 std::string &reason, bool &amaxPass) {
  assert(rowP.view.batches == colP.view.batches &&
         "both copies quantize the same matrices");
  int64_t batches = rowP.view.batches;
  assert(rowQ.config.e8m0Scales == colQ.config.e8m0Scales &&
         "the rule gives both copies' scales one type");
  // Tiles of 32 rows unless a copy's blocks need 128 to lie inside one
  // (and the kernel can take such tiles; else those blocks take an amax
  // pass).
  constexpr int64_t kRows = QuantizeConfig::kTileRows;
  constexpr int64_t kPairRows = QuantizeConfig::kPairTileRows;
  auto needsPairRows = [&](const QuantizeLaunch &q, const PreparedLaunch &p) {
    return !getFusedTileBlockRows(q, p, kRows) &&
           getFusedTileBlockRows(q, p, kPairRows);
  };
  auto getConfig = [&](int64_t tileRows) {
    std::optional<int64_t> rowPart =
        getFusedTileBlockRows(rowQ, rowP, tileRows);
    std::optional<int64_t> colPart =
        getFusedTileBlockRows(colQ, colP, tileRows);
    QuantizeConfig config = rowQ.config;
    config.tileRows = tileRows;
    config.fused = rowPart.has_value();
    config.tileBlockRows = rowPart.value_or(rowQ.config.tileBlockRows);
    config.pair = getPairFields(colQ.config);
    config.pair->tileBlockRows = colPart.value_or(colQ.config.tileBlockRows);
    config.pair->fused = colPart.has_value();
    return config;
  };
  int64_t tileRows = needsPairRows(rowQ, rowP) || needsPairRows(colQ, colP)
                         ? kPairRows
                         : kRows;
  QuantizeConfig config = getConfig(tileRows);
  if (tileRows == kPairRows && failed(config.verify(reason))) {
    tileRows = kRows;
    config = getConfig(tileRows);
  }
  if (failed(config.verify(reason)))
    return failure();
  // Two-level (NVFP4) copies both read the tensor's amax.
  if (rowQ.globalAmax && (!config.fused || !config.pair->fused)) {
    reason = "two-level (NVFP4) blocks must lie inside one tile";
    return failure();
  }

  // One amax pass for the copies that need one: a paired kernel when both
  // do with different blocks.
  InputArgs inputArgs(plan, rowQ.input);
  // Unused by fused copies, except for the tensor's amax of NVFP4.
  int64_t rowAmax = rowQ.globalAmax.value_or(inputArgs.getAnyBuffer());
  int64_t colAmax = rowAmax;
  // A launch whose first copy is `q` (prepared as `p`, amaxes in `amax`);
  // the pair's parameters are the column-wise copy's.
  auto addLaunch = [&](const QuantizeConfig &kernelConfig,
                       std::array<int64_t, 3> grid, const QuantizeLaunch &q,
                       const PreparedLaunch &p, int64_t amax) {
    return addCopiesLaunch(plan, kernelConfig, grid, inputArgs, {q, p, amax},
                           {colQ, colP, colAmax});
  };
  bool sameBlocks = rowP.view.blockRows == colP.view.blockRows &&
                    rowP.view.blockCols == colP.view.blockCols;
  if (!config.fused)
    rowAmax = addAmaxBuffer(plan, rowP);
  if (!config.pair->fused)
    colAmax = !config.fused && sameBlocks ? rowAmax : addAmaxBuffer(plan, colP);
  if (!config.fused && !config.pair->fused && !sameBlocks) {
    QuantizeConfig amaxConfig = config;
    amaxConfig.phase = QuantizeConfig::Phase::Amax;
    if (failed(addLaunch(
            amaxConfig,
            {getTileCount(rowP.view, amaxConfig.tileRows), batches, 1}, rowQ,
            rowP, rowAmax)))
      return failure();
  } else if (!config.fused || !config.pair->fused) {
    // The amaxes of one copy (or the same of both) by that copy's own amax
    // kernel; one amax of a whole batch over its matrices as one matrix.
    QuantizeLaunch q = config.fused ? colQ : rowQ;
    PreparedLaunch p = config.fused ? colP : rowP;
    int64_t amax = config.fused ? colAmax : rowAmax;
    if (p.view.sharedBlocks) {
      // Shared blocks have no batch strides (prepareLaunch).
      p.view = p.view.foldBatches();
      q.config.batched = false;
    }
    auto [amaxConfig, amaxGrid] = getAmaxLaunch(plan, q.config, p, kRows);
    FailureOr<bool> measured = measuredByColumnSums(plan, q, amaxConfig, amax);
    if (failed(measured) ||
        (!*measured && failed(addLaunch(amaxConfig, amaxGrid, q, p, amax))))
      return failure();
  }
  if (failed(addLaunch(config, {getTileCount(rowP.view, tileRows), batches, 1},
                       rowQ, rowP, rowAmax)))
    return failure();
  amaxPass = !config.fused || !config.pair->fused;
  return success();
}

/// Prepares the copy of a pair whose matrices fold into rows (`row` or
/// `col`, prepared as `rowP` or `colP`) again by matrix when the other copy
/// is stored by matrix (a transposed copy of each matrix), so that one
/// kernel walks both by the same grid rows; the same bytes.
LogicalResult prepareByMatrixAlike(PlanBuilder &plan, QuantizeLaunch &row,
                                   PreparedLaunch &rowP, QuantizeLaunch &col,
                                   PreparedLaunch &colP) {
  if (rowP.view.batched == colP.view.batched)
    return success();
  QuantizeLaunch &folded = rowP.view.batched ? col : row;
  PreparedLaunch &foldedPrepared = rowP.view.batched ? colP : rowP;
  folded.byMatrix = true;
  FailureOr<PreparedLaunch> byMatrix = prepareLaunch(plan, folded);
  if (failed(byMatrix))
    return failure();
  foldedPrepared = *byMatrix;
  return success();
}

/// The paired launches of the copies `rowQ` and `colQ` of a dynamic_quantize
/// (prepared as `rowP` and `colP`), with the remark saying whether there
/// are any: false when a kernel cannot pair them, having added nothing. A
/// copy whose matrices fold into rows is paired as a batch when the other
/// is stored by matrix (a transposed copy of each matrix).
FailureOr<bool> addDynamicPairLaunches(PlanBuilder &plan,
                                       const QuantizeLaunch &rowQ,
                                       const PreparedLaunch &rowP,
                                       const QuantizeLaunch &colQ,
                                       const PreparedLaunch &colP) {
  auto op = cast<DynamicQuantizeOp>(rowQ.op);
  QuantizeLaunch row = rowQ, col = colQ;
  PreparedLaunch rowPair = rowP, colPair = colP;
  if (failed(prepareByMatrixAlike(plan, row, rowPair, col, colPair)))
    return failure();
  std::string reason;
  bool amaxPass = false;
  if (failed(tryAddPairLaunches(plan, row, rowPair, col, colPair, reason,
                                amaxPass))) {
    remarkPair(op, /*fused=*/false, reason);
    return false;
  }
  remarkPair(op, /*fused=*/true, amaxPass ? " after one amax pass" : "");
  return true;
}

/// The launch writing the codes of `rowQ`, a quantization by given scales,
/// and their transposed copy `colQ` from one read: one paired kernel whose
/// copies read the same scales. Fails without adding anything, with the
/// reason, when a kernel cannot pair them.
LogicalResult
tryAddGivenPairLaunch(PlanBuilder &plan, const QuantizeLaunch &rowQ,
                      const PreparedLaunch &rowP, const QuantizeLaunch &colQ,
                      const PreparedLaunch &colP, std::string &reason) {
  assert(rowP.view.batches == colP.view.batches &&
         "both copies quantize the same matrices");
  // Quantizing by given scales is never fused (prepareLaunch).
  QuantizeConfig config = rowQ.config;
  config.pair = getPairFields(colQ.config);
  if (failed(config.verify(reason)))
    return failure();
  InputArgs inputArgs(plan, rowQ.input);
  int64_t given = *rowQ.givenScales;
  return addCopiesLaunch(plan, config,
                         {getTileCount(rowP.view, QuantizeConfig::kTileRows),
                          rowP.view.batches, 1},
                         inputArgs, {rowQ, rowP, given}, {colQ, colP, given});
}

/// The transposes of `codes` (of each matrix of a batch), codes of one
/// scale that are also read as they are: a copy the quantization can write
/// transposed from the same read (the transposes then have no launch);
/// empty otherwise.
SmallVector<Operation *> getTransposedCopyReaders(Value codes) {
  auto type = cast<RankedTensorType>(codes.getType());
  if (type.getRank() < 2 || type.getElementType().isFloat(4))
    return {};
  SmallVector<Operation *> transposes =
      getTransposeUsers(codes, /*batched=*/true);
  if (transposes.empty() || readOnlyTransposed(codes))
    return {};
  return transposes;
}

/// The remark saying whether `op` writes the transposed copy of its codes.
void remarkTransposedCopy(Operation *op, bool fused, StringRef detail) {
  remark::RemarkOpts opts = getFP8GPURemarkOpts(
      op, fused ? "quantize-transpose-fused" : "quantize-transpose-not-fused");
  if (fused)
    remark::passed(op->getLoc(), opts)
        << remark::add("codes and their transposed copy written from one "
                       "read of the input: no transpose kernel");
  else
    remark::missed(op->getLoc(), opts) << remark::add(
        "the transposed copy of the codes is written by a kernel of its own: "
        "{0}",
        detail.str());
}

/// The launches of `rowQ` (prepared as `rowP`), codes by one scale per
/// matrix that `transposes` also read transposed: one paired kernel writing
/// both layouts where a kernel can, else a kernel per layout; remarks which.
/// The transposed copy's scale (the same) goes to the same buffer.
LogicalResult addTransposedCopyLaunches(PlanBuilder &plan,
                                        const QuantizeLaunch &rowQ,
                                        const PreparedLaunch &rowP,
                                        ArrayRef<Operation *> transposes) {
  QuantizeLaunch colQ = rowQ;
  colQ.transposed = true;
  colQ.data = foldTransposes(plan, transposes);
  // Given scales: the scales parameter is unused, as the row copy's.
  if (rowQ.givenScales)
    colQ.scale = colQ.data;
  colQ.unpadded = hasDenseReader(transposes);
  FailureOr<PreparedLaunch> colP = prepareLaunch(plan, colQ);
  if (failed(colP))
    return failure();
  // The row copy by matrix, as the transposed copy is, for the pair.
  QuantizeLaunch rowPairQ = rowQ, colPairQ = colQ;
  PreparedLaunch rowPairP = rowP, colPairP = *colP;
  if (failed(
          prepareByMatrixAlike(plan, rowPairQ, rowPairP, colPairQ, colPairP)))
    return failure();
  std::string reason;
  bool amaxPass = false;
  LogicalResult paired =
      rowQ.givenScales ? tryAddGivenPairLaunch(plan, rowPairQ, rowPairP,
                                               colPairQ, colPairP, reason)
                       : tryAddPairLaunches(plan, rowPairQ, rowPairP, colPairQ,
                                            colPairP, reason, amaxPass);
  remarkTransposedCopy(rowQ.op, succeeded(paired), reason);
  if (succeeded(paired))
    return success();
  if (failed(addPreparedLaunches(plan, rowQ, rowP)))
    return failure();
  return addPreparedLaunches(plan, colQ, *colP);
}

/// E2M1 codes `data`, stored as they are by `q`, that are also read through
/// transposes (of each matrix of a batch): a second launch of the quantization
/// stores them transposed (the same codes, and scales if `scale` is given),
/// since layout kernels do not move packed 4-bit codes. The transposes of the
/// scales read the second launch's; without such transposes its scales go to a
/// scratch buffer, as they do when the first launch stored them in the tcgen05
/// layout.
LogicalResult addTransposedE2M1Copy(PlanBuilder &plan, QuantizeLaunch q,
                                    Value data, Value scale) {
  SmallVector<Operation *> transposes =
      getTransposeUsers(data, /*batched=*/true);
  if (q.transposed || q.config.format != Format::E2M1 || transposes.empty())
    return success();
  q.transposed = true;
  q.data = foldTransposes(plan, transposes);
  q.unpadded = hasDenseReader(transposes);
  bool laidOut = q.tcgen05Scales.has_value();
  q.tcgen05Scales.reset();
  if (!scale) {
    q.scale = q.data;
  } else if (isTransposeInvariant(scale) && !laidOut) {
    q.scale = plan.bufferOf(scale);
  } else if (SmallVector<Operation *> scaleTransposes =
                 getTransposeUsers(scale, /*batched=*/true);
             !scaleTransposes.empty()) {
    q.scale = foldTransposes(plan, scaleTransposes);
  } else {
    auto type = cast<RankedTensorType>(scale.getType());
    SmallVector<int64_t> shape = llvm::to_vector(type.getShape());
    std::swap(shape[shape.size() - 2], shape.back());
    q.scale =
        plan.addBuffer(PlanBuffer::Kind::Temp,
                       RankedTensorType::get(shape, type.getElementType()));
  }
  remarkTransposedCopy(q.op, /*fused=*/false,
                       "no layout kernel moves 4-bit codes, so the "
                       "quantization runs again, stored transposed");
  return addQuantizeLaunches(plan, q);
}

/// NVFP4: a zero-filled f32 buffer and the kernel reducing the tensor's
/// amax into it; returns the buffer.
FailureOr<int64_t> addGlobalAmaxLaunches(PlanBuilder &plan,
                                         DynamicQuantizeOp op) {
  QuantizeLaunch q;
  q.op = op;
  q.input = op.getInput();
  q.granularity = GranularityAttr::getTensor(op.getContext());
  q.config.nanPolicy = op.getNanPolicy();
  q.data = q.scale = plan.addBuffer(
      PlanBuffer::Kind::Temp,
      RankedTensorType::get({1, 1}, Float32Type::get(op.getContext())));
  q.amaxOnly = true;
  if (failed(addQuantizeLaunches(plan, q)))
    return failure();
  return q.data;
}

} // namespace

LogicalResult mlir::fp8::planDynamicQuantize(PlanBuilder &plan,
                                             DynamicQuantizeOp op) {
  // NVFP4: the amax of the whole tensor first; every copy's kernel derives
  // the global scale from it.
  std::optional<int64_t> globalAmax, globalScale;
  if (Value global = op.getGlobalScale()) {
    if (plan.getChip() != Chip::SM100a)
      return op.emitError("fp8 GPU lowering: two-level (NVFP4) quantization "
                          "produces E2M1 codes, which only sm_100a "
                          "multiplies");
    FailureOr<int64_t> amax = addGlobalAmaxLaunches(plan, op);
    if (failed(amax))
      return failure();
    globalAmax = *amax;
    globalScale = plan.bufferOf(global);
  }

  // A copy read only through transposes is stored transposed: the K-major
  // operand of a GEMM, written by the quantization (cast+transpose).
  auto describeCopy = [&](GranularityAttr granularity, Value data, Value scale,
                          Tcgen05ScaleLayoutAttr layout,
                          bool transposed) -> FailureOr<QuantizeLaunch> {
    // The op's frame of the copy; the planner may store it transposed.
    bool opTransposed = transposed;
    QuantizeLaunch q;
    q.op = op;
    q.input = op.getInput();
    q.granularity = granularity;
    q.globalAmax = globalAmax;
    q.globalScale = globalScale;
    q.unpadded = hasDenseReader(data);
    if (!transposed && readOnlyTransposed(data) &&
        (isTransposeInvariant(scale) || readOnlyTransposed(scale))) {
      transposed = true;
      q.unpadded = hasDenseReader(llvm::to_vector(data.getUsers()));
      q.data = foldTransposesOf(plan, data);
      q.scale = isTransposeInvariant(scale) ? plan.bufferOf(scale)
                                            : foldTransposesOf(plan, scale);
    } else {
      q.data = plan.bufferOf(data);
      q.scale = plan.bufferOf(scale);
    }
    q.transposed = transposed;
    QuantizeConfig &config = q.config;
    config.format =
        *getFormat(cast<RankedTensorType>(data.getType()).getElementType());
    config.rule = op.getRule();
    config.overflow = op.getOverflow();
    config.nanPolicy = op.getNanPolicy();
    config.e8m0Scales = isa<Float8E8M0FNUType>(
        cast<RankedTensorType>(scale.getType()).getElementType());
    if (failed(
            getTcgen05Layout(plan, op, data, scale, layout, opTransposed, q)))
      return failure();
    return q;
  };
  FailureOr<QuantizeLaunch> rowCopy =
      describeCopy(op.getGranularity(), op.getData(), op.getScale(),
                   op.getScaleLayoutAttr(), /*transposed=*/false);
  if (failed(rowCopy))
    return failure();
  FailureOr<PreparedLaunch> rowPrepared = prepareLaunch(plan, *rowCopy);
  if (failed(rowPrepared))
    return failure();
  GranularityAttr col = op.getColGranularityAttr();
  SmallVector<Operation *> transposes;
  if (!col && op.getGranularity().isTensor() && !globalAmax)
    transposes = getTransposedCopyReaders(op.getData());
  if (!col && !transposes.empty())
    return addTransposedCopyLaunches(plan, *rowCopy, *rowPrepared, transposes);
  if (!col) {
    if (failed(addPreparedLaunches(plan, *rowCopy, *rowPrepared)))
      return failure();
    return addTransposedE2M1Copy(plan, *rowCopy, op.getData(), op.getScale());
  }
  FailureOr<QuantizeLaunch> colCopy =
      describeCopy(col, op.getColData(), op.getColScale(),
                   op.getColScaleLayoutAttr(), op.getTransposed());
  if (failed(colCopy))
    return failure();
  FailureOr<PreparedLaunch> colPrepared = prepareLaunch(plan, *colCopy);
  if (failed(colPrepared))
    return failure();
  FailureOr<bool> paired = addDynamicPairLaunches(plan, *rowCopy, *rowPrepared,
                                                  *colCopy, *colPrepared);
  if (failed(paired))
    return failure();
  if (!*paired) {
    // Each copy reads the input by itself.
    if (failed(addPreparedLaunches(plan, *rowCopy, *rowPrepared)) ||
        failed(addPreparedLaunches(plan, *colCopy, *colPrepared)))
      return failure();
  }
  if (failed(
          addTransposedE2M1Copy(plan, *rowCopy, op.getData(), op.getScale())))
    return failure();
  return addTransposedE2M1Copy(plan, *colCopy, op.getColData(),
                               op.getColScale());
}

LogicalResult mlir::fp8::planQuantize(PlanBuilder &plan, QuantizeOp op) {
  QuantizeLaunch q;
  q.op = op;
  q.input = op.getInput();
  q.granularity = op.getGranularity();
  q.config.format = *getFormat(op.getType().getElementType());
  // cvt.rn.satfinite.e2m1x2 exists on sm_100a (and NVFP4's GEMMs only
  // there).
  if (q.config.format == Format::E2M1 && plan.getChip() != Chip::SM100a)
    return op.emitError("fp8 GPU lowering: quantization to E2M1 codes "
                        "(NVFP4) converts with cvt.rn.satfinite.e2m1x2, which "
                        "only sm_100a has");
  q.config.overflow = op.getOverflow();
  q.config.e8m0Scales = isa<Float8E8M0FNUType>(
      cast<RankedTensorType>(op.getScale().getType()).getElementType());
  // The verifier pairs E4M3 block scales with the global scale, and
  // stochastic rounding with the random words.
  if (Value global = op.getGlobalScale())
    q.givenGlobal = plan.bufferOf(global);
  if (Value rbits = op.getRbits())
    q.randomBits = plan.bufferOf(rbits);
  Value result = op.getResult();
  q.unpadded = hasDenseReader(result);
  // Read only through transposes: stored transposed (cast+transpose).
  q.transposed = readOnlyTransposed(result);
  if (q.transposed) {
    q.data = foldTransposesOf(plan, result);
    q.unpadded = hasDenseReader(llvm::to_vector(result.getUsers()));
  } else {
    q.data = plan.bufferOf(result);
  }
  q.scale = q.data;
  q.givenScales = plan.bufferOf(op.getScale());
  SmallVector<Operation *> transposes;
  if (q.granularity.isTensor() && !q.transposed && !q.randomBits &&
      !q.givenGlobal)
    transposes = getTransposedCopyReaders(result);
  if (!transposes.empty()) {
    FailureOr<PreparedLaunch> prepared = prepareLaunch(plan, q);
    if (failed(prepared))
      return failure();
    return addTransposedCopyLaunches(plan, q, *prepared, transposes);
  }
  if (failed(addQuantizeLaunches(plan, q)))
    return failure();
  return addTransposedE2M1Copy(plan, q, result, Value());
}

LogicalResult mlir::fp8::planAmax(PlanBuilder &plan, AmaxOp op) {
  QuantizeLaunch q;
  q.op = op;
  q.input = op.getInput();
  q.granularity = op.getGranularity();
  q.config.nanPolicy = op.getNanPolicy();
  q.data = q.scale = plan.bufferOf(op.getResult());
  q.amaxOnly = true;
  return addQuantizeLaunches(plan, q);
}

LogicalResult mlir::fp8::planComputeScale(PlanBuilder &plan,
                                          ComputeScaleOp op) {
  ComputeScaleConfig config;
  config.rule = op.getRule();
  config.format = op.getFormat();
  config.global = bool(op.getGlobalScale());
  config.inverse = bool(op.getScaleInv());
  int64_t count = op.getAmax().getType().getNumElements();
  OpBuilder builder = plan.getKernelBuilder();
  LLVM::LLVMFuncOp kernel =
      buildComputeScaleKernel(builder, op.getLoc(), config);
  int64_t blocks =
      std::clamp<int64_t>(llvm::divideCeil(count, ComputeScaleConfig::kThreads),
                          1, plan.getNumSMs() * 8);
  plan.addKernelLaunch(
      kernel, config, {blocks, 1, 1}, /*sharedBytes=*/0,
      [&](ComputeScaleParam param) -> LaunchParam {
        switch (param) {
        case ComputeScaleParam::Amax:
          return BufferParam{plan.bufferOf(op.getAmax())};
        case ComputeScaleParam::GlobalScale:
          return BufferParam{plan.bufferOf(op.getGlobalScale())};
        case ComputeScaleParam::Scale:
          return BufferParam{plan.bufferOf(op.getScale())};
        case ComputeScaleParam::ScaleInv:
          return BufferParam{plan.bufferOf(op.getScaleInv())};
        case ComputeScaleParam::Count:
          return I32Param{count};
        }
        llvm_unreachable("unknown compute-scale parameter");
      },
      /*persistent=*/false);
  return success();
}

/// The quantization that reads `use` as its input, if it is one.
static Operation *getQuantizationReading(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto quantize = dyn_cast<DynamicQuantizeOp>(user))
    return &quantize.getInputMutable() == &use ? user : nullptr;
  if (auto quantize = dyn_cast<QuantizeOp>(user))
    return &quantize.getInputMutable() == &use ? user : nullptr;
  if (auto amax = dyn_cast<AmaxOp>(user))
    return &amax.getInputMutable() == &use ? user : nullptr;
  return nullptr;
}

/// Why the quantize kernels reading the result of `op`, an elementwise op,
/// cannot compute it; empty when they can.
static std::string whyNoQuantizePrologue(PlanBuilder &plan,
                                         linalg::LinalgOp op) {
  if (op->getNumResults() != 1)
    return "it has several results";
  Value result = op->getResult(0);
  for (OpOperand &use : result.getUses())
    if (!getQuantizationReading(use))
      return ("its result is also read by '" +
              use.getOwner()->getName().getStringRef() + "'")
          .str();
  auto type = cast<RankedTensorType>(result.getType());
  if (type.getRank() != 2 || !type.hasStaticShape())
    return "the kernels compute prologues of two static dimensions";
  if (!getWideElement(type.getElementType()))
    return "its result is not f32, bf16 or f16";
  if (!op.getIndexingMapMatchingResult(cast<OpResult>(result)).isIdentity())
    return "it writes its result through a permutation";
  std::string reason;
  if (failed(verifyClonableBody(op, reason)))
    return reason;
  int64_t matrixBytes = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!operandType)
      return "it has a scalar operand";
    if (op.getMatchingBlockArgument(&operand).use_empty())
      continue;
    Type element = operandType.getElementType();
    if (!getWideElement(element) &&
        !(isSoftFloatType(element) && getElementBytes(element) == 1))
      return llvm::formatv("it reads {0} elements; the kernels read f32, "
                           "bf16, f16 and 8-bit floats",
                           element)
          .str();
    std::optional<ElementRead> read =
        getElementRead(op.getMatchingIndexingMap(&operand));
    if (!read)
      return "it reads an input through a map other than the identity, a "
             "row, a column or none";
    if (*read == ElementRead::Matrix)
      matrixBytes += getElementBytes(element);
  }
  // Each kernel reading the result reads the matrices again: a per-tensor
  // quantization reads its input twice (amax, then codes), against one
  // write and two reads of a stored result.
  int64_t resultBytes = getElementBytes(type.getElementType());
  if (matrixBytes > 3 * resultBytes)
    return llvm::formatv("it reads {0} bytes of matrices per element, more "
                         "than three times the {1} of its result",
                         matrixBytes, resultBytes)
        .str();
  // The kernels clone the body as elementwise kernels do: it must lower
  // without libdevice.
  OpBuilder builder = plan.getKernelBuilder();
  FailureOr<LLVM::LLVMFuncOp> probe =
      buildElementwiseKernel(builder, op, "fp8_prologue_probe", reason);
  if (failed(probe))
    return reason;
  probe->erase();
  return "";
}

bool mlir::fp8::planQuantizePrologue(PlanBuilder &plan, linalg::LinalgOp op) {
  if (!plan.fusePrologues || op->getNumResults() == 0)
    return false;
  SmallVector<Operation *> quantizations;
  for (OpOperand &use : op->getResult(0).getUses())
    if (Operation *quantization = getQuantizationReading(use))
      quantizations.push_back(quantization);
  if (quantizations.empty())
    return false;
  // In the order of the function (uses are listed last first).
  llvm::sort(quantizations,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  quantizations.erase(llvm::unique(quantizations), quantizations.end());
  std::string reason = whyNoQuantizePrologue(plan, op);
  std::string readers =
      llvm::join(llvm::map_range(quantizations,
                                 [](Operation *q) {
                                   return q->getName().getStringRef().str();
                                 }),
                 ", ");
  if (!reason.empty()) {
    remark::missed(op->getLoc(), getFP8GPURemarkOpts(op, "prologue-not-fused"))
        << remark::add("{0} not computed by the kernels of {1}: {2}",
                       op->getName().getStringRef(), readers, reason);
    return false;
  }
  plan.quantizePrologues[op->getResult(0)] = op;
  remark::passed(op->getLoc(), getFP8GPURemarkOpts(op, "prologue-fused"))
      << remark::add("{0} computed by the kernels of {1} where they load "
                     "their input: its result is never stored",
                     op->getName().getStringRef(), readers);
  return true;
}
