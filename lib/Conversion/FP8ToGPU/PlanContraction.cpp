//===- PlanContraction.cpp - Launches of high-precision contractions ------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A linalg contraction that autocast left in bf16, f16 or f32 (a recipe's
// excluded layers, attention's QK^T and PV under the Transformer Engine
// convention) becomes the chip's GEMM with high-precision operands: wgmma
// .bf16/.f16/.tf32 on sm_90a, tcgen05.mma kind::f16/kind::tf32 on sm_100a,
// f32 accumulation, no scales. linalg.matmul, linalg.batch_matmul, their
// transposed forms and generic contractions with one M, N and K dimension
// and at most one batch dimension all qualify.
//
// The kernels read both operands K-major ([batch, M, K] and [batch, N, K]).
// An operand stored otherwise gets a transposed copy first, as the FP8 path
// transposes its codes: one main loop and one descriptor layout serve every
// GEMM, and the copy is one pass over the operand. With
// `sm90-mn-major-operands`, an sm_90a GEMM of 16-bit operands instead reads
// an operand stored MN-major ([batch, K, M] or [batch, K, N]) where it is:
// wgmma transposes bf16 and f16 tiles from shared memory (tf32 and the FP8
// formats cannot be transposed, nor can tcgen05's here).
//
// The zero fill a contraction accumulates into has no kernel: the GEMM
// writes A x B. When the product's one reader is an elementwise
// linalg.generic (the rounding to the model's type, a scale), the GEMM
// applies it in its epilogue, as fp8.scaled_matmul's epilogue region: the
// product is never stored, and the generic has no kernel.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"
#include "PlanBuilder.h"

#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Remarks.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// A contraction as the GEMM sees it: C[b, M, N] = A[b, M, K] x B[b, N, K]^T
/// with the buffers of its operands: K-major, or stored as [b, K, M] and
/// [b, K, N] where `mnMajorA` and `mnMajorB` say so.
struct Contraction {
  WideElement operands, result;
  int64_t batches = 1, m = 0, n = 0, k = 0;
  int64_t a = -1, b = -1;
  bool mnMajorA = false, mnMajorB = false;
};

/// Whether `init`, the tensor a contraction accumulates into, is all zeros.
bool isZeroInit(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  return matchPattern(init, m_AnyZeroFloat());
}

/// The positions in `map`'s results of the loop dimensions `dims`, or an
/// empty vector when `map` does not read exactly those dimensions.
SmallVector<int64_t> getPermutation(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumResults() != dims.size())
    return {};
  SmallVector<int64_t> permutation;
  for (unsigned dim : dims) {
    std::optional<unsigned> position =
        map.getResultPosition(getAffineDimExpr(dim, map.getContext()));
    if (!position)
      return {};
    permutation.push_back(*position);
  }
  return permutation;
}

/// Describes `op` for the GEMM, planning K-major copies of its operands
/// where they are stored otherwise; errors say what has no kernel.
FailureOr<Contraction> describeContraction(PlanBuilder &plan,
                                           linalg::LinalgOp op) {
  auto fail = [&](const Twine &why) -> FailureOr<Contraction> {
    return op->emitError() << "fp8 GPU lowering: '" << op->getName()
                           << "' has no kernel: " << why;
  };
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1)
    return fail("the high-precision GEMM contracts one M, N and K dimension "
                "with at most one batch dimension");
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return fail("a contraction reads two operands into one result");
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  Type element = getElementTypeOrSelf(lhs.getType());
  std::optional<WideElement> operands = getWideElement(element);
  std::optional<WideElement> result =
      getWideElement(getElementTypeOrSelf(init.getType()));
  if (!operands || element != getElementTypeOrSelf(rhs.getType()) || !result)
    return fail("contractions left in high precision multiply two operands "
                "of one type, bf16, f16 or f32, into bf16, f16 or f32; FP8 "
                "contractions run as fp8.scaled_matmul (fp8-autocast)");
  if (!isZeroInit(init))
    return fail("it accumulates into an init that is not zero, and the GEMM "
                "writes A x B only");

  SmallVector<unsigned> batch(dims->batch.begin(), dims->batch.end());
  unsigned m = dims->m.front(), n = dims->n.front(), k = dims->k.front();
  auto withBatch = [&](std::initializer_list<unsigned> inner) {
    SmallVector<unsigned> order = batch;
    order.append(inner);
    return order;
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<int64_t> resultOrder = getPermutation(maps[2], withBatch({m, n}));
  if (resultOrder.empty() ||
      !llvm::equal(resultOrder, llvm::seq<int64_t>(0, resultOrder.size())))
    return fail("the GEMM writes its result as [batch, M, N]; transpose the "
                "result after the contraction instead");

  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  Contraction c;
  c.operands = *operands;
  c.result = *result;
  c.batches = batch.empty() ? 1 : ranges[batch.front()];
  c.m = ranges[m];
  c.n = ranges[n];
  c.k = ranges[k];
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  // The FP8 GEMMs' rule for their results, which the epilogues store alike.
  int64_t resultBytes = c.result == WideElement::F32 ? 4 : 2;
  if (c.n * resultBytes % 16 != 0)
    return fail(llvm::formatv("result rows are 16-byte multiples, and N = "
                              "{0} elements of {1} bytes are not",
                              c.n, resultBytes));
  // Each operand's order of dimensions against [batch, rows, K].
  auto orderOf = [&](AffineMap map,
                     unsigned rows) -> FailureOr<SmallVector<int64_t>> {
    SmallVector<int64_t> order = getPermutation(map, withBatch({rows, k}));
    if (order.empty())
      return op->emitError()
             << "fp8 GPU lowering: '" << op->getName()
             << "' has no kernel: an operand does not read exactly the batch, "
                "M or N, and K dimensions";
    return order;
  };
  FailureOr<SmallVector<int64_t>> orderA = orderOf(maps[0], m);
  if (failed(orderA))
    return failure();
  FailureOr<SmallVector<int64_t>> orderB = orderOf(maps[1], n);
  if (failed(orderB))
    return failure();
  // 16-bit operands stored [batch, K, rows] are read as they are where the
  // chip and the options allow and TMA can: rows of 16-byte multiples.
  auto isMNMajor = [&](ArrayRef<int64_t> order, int64_t extent) {
    SmallVector<int64_t> transposed =
        llvm::to_vector(llvm::seq<int64_t>(0, order.size()));
    std::swap(transposed[order.size() - 2], transposed[order.size() - 1]);
    return plan.getChip() == Chip::SM90a && plan.sm90MNMajorOperands &&
           c.operands != WideElement::F32 && llvm::equal(order, transposed) &&
           extent * bytes % 16 == 0;
  };
  c.mnMajorA = isMNMajor(*orderA, c.m);
  c.mnMajorB = isMNMajor(*orderB, c.n);
  // K-major operands (and copies) are read in rows of K.
  if ((!c.mnMajorA || !c.mnMajorB) && c.k * bytes % 16 != 0)
    return fail(llvm::formatv("TMA reads operand rows of 16-byte multiples, "
                              "and K = {0} elements of {1} bytes are not",
                              c.k, bytes));
  // Each operand's buffer: as stored when K-major or read MN-major, else a
  // copy as [batch, rows, K].
  auto place = [&](Value operand, ArrayRef<int64_t> order,
                   bool mnMajor) -> FailureOr<int64_t> {
    if (mnMajor || llvm::equal(order, llvm::seq<int64_t>(0, order.size())))
      return plan.bufferOf(operand);
    return planPermutedCopy(plan, op, operand, order);
  };
  FailureOr<int64_t> a = place(lhs, *orderA, c.mnMajorA);
  if (failed(a))
    return failure();
  FailureOr<int64_t> b = place(rhs, *orderB, c.mnMajorB);
  if (failed(b))
    return failure();
  c.a = *a;
  c.b = *b;
  if (c.mnMajorA || c.mnMajorB)
    remark::passed(op->getLoc(), getFP8GPURemarkOpts(op, "mn-major-operands"))
        << remark::add("{0} reads {1} stored MN-major, with no transposed "
                       "copy",
                       op->getName().getStringRef(),
                       c.mnMajorA && c.mnMajorB ? "A and B as they are"
                       : c.mnMajorA             ? "A as it is"
                                                : "B as it is");
  return c;
}

/// The elementwise consumer of `op`'s product that its GEMM applies in the
/// epilogue (described in `epilogue`), or null with the reason in `why`.
linalg::GenericOp getEpilogueConsumer(const Contraction &c, linalg::LinalgOp op,
                                      std::optional<GemmEpilogue> &epilogue,
                                      std::string &why) {
  Value product = op->getResult(0);
  auto fail = [&](const Twine &reason) -> linalg::GenericOp {
    why = reason.str();
    return {};
  };
  if (!product.hasOneUse())
    return fail(llvm::formatv("its product has {0} readers",
                              llvm::range_size(product.getUses())));
  OpOperand &use = *product.use_begin();
  auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!consumer)
    return fail("its product is read by '" +
                use.getOwner()->getName().getStringRef() +
                "', which is not a linalg.generic");
  // Elementwise, as fp8-fuse-elementwise's consumers (loop indices
  // included), with one result.
  std::string reason;
  if (!isFusableElementwise(consumer, reason, /*indices=*/true))
    return fail("'linalg.generic' " + reason);
  if (consumer->getNumResults() != 1)
    return fail("'linalg.generic' has several results");
  if (use.getOperandNumber() != 0 ||
      !consumer.getMatchingIndexingMap(&use).isIdentity() ||
      !consumer.getIndexingMapMatchingResult(consumer->getResult(0))
           .isIdentity())
    return fail("'linalg.generic' reads the product other than as its "
                "first input, at the position it writes");
  // Its body may read the element's row and column (a causal mask).
  if (failed(verifyClonableBody(consumer, why, /*indices=*/true)))
    return {};
  int64_t loops = consumer.getNumLoops();
  if (llvm::any_of(consumer.getBody()->getOps<linalg::IndexOp>(),
                   [&](linalg::IndexOp index) {
                     return int64_t(index.getDim()) < loops - 2;
                   }))
    return fail("'linalg.generic' reads the batch index");
  auto type = cast<RankedTensorType>(consumer->getResult(0).getType());
  std::optional<WideElement> out = getWideElement(type.getElementType());
  if (!out)
    return fail(llvm::formatv("'linalg.generic' writes {0} elements; the "
                              "GEMMs write f32, bf16 or f16",
                              type.getElementType()));
  if (c.n * getElementBytes(type.getElementType()) % 16 != 0)
    return fail("the GEMM writes rows of 16-byte multiples");
  GemmEpilogue result;
  result.product = c.result;
  // The operands in a named vector: drop_begin of the temporary would
  // outlive it (a dangling read with more inputs than it holds inline).
  SmallVector<OpOperand *> inputs = consumer.getDpsInputOperands();
  for (OpOperand *input : llvm::drop_begin(inputs)) {
    auto inputType = dyn_cast<RankedTensorType>(input->get().getType());
    std::optional<WideElement> element =
        inputType && inputType.hasStaticShape()
            ? getWideElement(inputType.getElementType())
            : std::nullopt;
    if (!element)
      return fail("'linalg.generic' reads an input other than a static "
                  "f32, bf16 or f16 tensor");
    // The GEMM runs where the contraction is: its inputs must be ready.
    if (Operation *producer = input->get().getDefiningOp();
        producer && !producer->isBeforeInBlock(op))
      return fail("'linalg.generic' reads a value computed after the "
                  "contraction");
    AffineMap map = consumer.getMatchingIndexingMap(input);
    std::optional<ElementRead> read =
        c.batches > 1
            ? (map.getNumResults() == 0 ? std::optional(ElementRead::Scalar)
                                        : std::nullopt)
            : getElementRead(map);
    if (!read)
      return fail(c.batches > 1
                      ? "the epilogue of a batch of GEMMs reads scalars only"
                      : "'linalg.generic' reads an input through a map "
                        "other than the identity, a row, a column or none");
    result.inputs.push_back({*element, *read});
  }
  result.body = &consumer.getRegion().front();
  result.tag = getBodyDigest(*result.body);
  epilogue = std::move(result);
  return consumer;
}

/// Records the launch of the GEMM `config` computing `c` into `out`, the
/// result of `op` or of its epilogue's consumer, over tiles of `blockM` x
/// `blockN` and `boxK` elements of K.
template <typename Config>
void addGemmLaunch(PlanBuilder &plan, const Contraction &c,
                   linalg::GenericOp consumer, Value out,
                   LLVM::LLVMFuncOp kernel, const Config &config,
                   int64_t blockM, int64_t blockN, int64_t boxK) {
  int64_t bits = config.getOperandBits();
  // A K-major operand's box is the tile's rows by the stage's K; an MN-major
  // one's the stage's rows of K by 64 elements of M or N (a 128-byte
  // swizzle span), copied blockM / 64 or blockN / 64 times.
  auto operandMap = [&](int64_t buffer, int64_t rows, int64_t blockRows,
                        bool mnMajor) {
    return mnMajor
               ? plan.getTensorMap(buffer, c.k, rows, boxK, 64, bits, c.batches)
               : plan.getTensorMap(buffer, rows, c.k, blockRows, boxK, bits,
                                   c.batches);
  };
  TensorMapParam a = operandMap(c.a, c.m, blockM, c.mnMajorA);
  // Multicast B (multicastB): each CTA of a cluster copies half of the tile.
  TensorMapParam b =
      operandMap(c.b, c.n, blockN / config.getClusterSize(), c.mnMajorB);
  int64_t outBuffer = plan.bufferOf(out);
  TensorMapParam outMap;
  if constexpr (std::is_same_v<Config, GemmSM90Config>)
    if (config.tmaStore)
      outMap = getResultTensorMap(plan, out, config, c.batches, c.m, c.n);
  SmallVector<int64_t> epilogueInputs;
  if (consumer) {
    SmallVector<Value> inputs = consumer.getDpsInputs();
    for (Value input : llvm::drop_begin(inputs))
      epilogueInputs.push_back(plan.bufferOf(input));
  }
  plan.addKernelLaunch(
      kernel, config,
      getGemmGrid(plan, config, c.batches, llvm::divideCeil(c.m, blockM),
                  llvm::divideCeil(c.n, blockN)),
      config.getSharedMemoryBytes(),
      [&, next = 0u](GemmParam param) mutable -> LaunchParam {
        switch (param) {
        case GemmParam::TensorMapA:
          return a;
        case GemmParam::TensorMapB:
          return b;
        case GemmParam::Out:
          return BufferParam{outBuffer};
        case GemmParam::OutTensorMap:
          return outMap;
        case GemmParam::EpilogueInput:
          return BufferParam{epilogueInputs[next++]};
        case GemmParam::M:
          return I32Param{c.m};
        case GemmParam::N:
          return I32Param{c.n};
        case GemmParam::K:
          return I32Param{c.k};
        case GemmParam::Batches:
          return I32Param{c.batches};
        default:
          llvm_unreachable("a parameter high-precision GEMMs do not take");
        }
      },
      /*persistent=*/true);
}

} // namespace

bool mlir::fp8::isContractionZeroInit(linalg::FillOp fill) {
  Value zeros = fill->getResult(0);
  if (zeros.use_empty() || !isZeroInit(zeros))
    return false;
  return llvm::all_of(zeros.getUses(), [](OpOperand &use) {
    auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return op && linalg::isaContractionOpInterface(op) && op.isDpsInit(&use);
  });
}

namespace {

/// Builds the chip's GEMM computing `c` into the product of `op`, or with
/// `epilogue` into the result of `consumer`, and records its launch.
/// Without an epilogue errors are reported; with one, a GEMM that refuses it
/// or a body that needs libdevice fails silently, saying why in `why`.
LogicalResult addContractionGemm(PlanBuilder &plan, linalg::LinalgOp op,
                                 const Contraction &c,
                                 linalg::GenericOp consumer,
                                 const std::optional<GemmEpilogue> &epilogue,
                                 std::string &why) {
  Value out = consumer ? consumer->getResult(0) : op->getResult(0);
  // What both chips' configurations take from `c` (before the tile sizes,
  // which depend on the operands).
  auto configure = [&](auto &config) {
    config.wideOperands = c.operands;
    config.out = *getWideElement(getElementTypeOrSelf(out.getType()));
    config.batched = c.batches > 1;
    config.epilogue = epilogue;
  };
  // The launch, once the kernel is built; `headLayout` (chooseHeadLayout's)
  // is folded into it then.
  auto finish = [&](auto &config, auto build, int64_t blockM, int64_t blockN,
                    int64_t boxK,
                    linalg::TransposeOp headLayout = {}) -> LogicalResult {
    std::string reason;
    if (failed(config.verify(reason))) {
      if (!epilogue)
        return op->emitError() << "fp8 GPU lowering: " << reason;
      why = "the GEMM with it: " + reason;
      return failure();
    }
    OpBuilder builder = plan.getKernelBuilder();
    LLVM::LLVMFuncOp kernel = build(builder, op.getLoc(), config);
    if (Operation *left =
            epilogue ? expandClonedBodyForNVVM(kernel) : nullptr) {
      kernel.erase();
      why = ("its body's '" + left->getName().getStringRef() +
             "' has no GPU lowering without libdevice")
                .str();
      return failure();
    }
    if (headLayout)
      foldHeadLayout(plan, op, out, headLayout);
    addGemmLaunch(plan, c, consumer, out, kernel, config, blockM, blockN, boxK);
    return success();
  };
  if (plan.getChip() == Chip::SM100a) {
    GemmSM100Config config;
    configure(config);
    config.blockN = c.n > 64 ? 128 : 64;
    return finish(config, buildGemmSM100Kernel, GemmSM100Config::kBlockM,
                  config.blockN, config.getStageK());
  }
  GemmSM90Config config;
  configure(config);
  config.promoteInterval = 0;
  config.mnMajorA = c.mnMajorA;
  config.mnMajorB = c.mnMajorB;
  config.blockN =
      c.n <= 64                                                         ? 64
      : plan.takesWideSM90Tiles(op, c.batches, c.m, c.n, /*fp8=*/false) ? 192
                                                                        : 128;
  linalg::TransposeOp headLayout = chooseHeadLayout(plan, op, out, config);
  chooseTmaStore(plan, op, config);
  chooseMulticast(plan, op, c.m, config);
  // Refused (the tensor cores accumulate across K tiles), with a remark.
  chooseAlternateConsumers(plan, op, config);
  return finish(config, buildGemmSM90Kernel, config.blockM, config.blockN,
                config.getKElements(GemmSM90Config::kBlockK), headLayout);
}

} // namespace

LogicalResult mlir::fp8::planContraction(PlanBuilder &plan,
                                         linalg::LinalgOp op) {
  FailureOr<Contraction> c = describeContraction(plan, op);
  if (failed(c))
    return failure();
  std::optional<GemmEpilogue> epilogue;
  std::string why;
  // With the epilogue when it has one; without, when it does not or when
  // the GEMM cannot apply it.
  if (linalg::GenericOp consumer = getEpilogueConsumer(*c, op, epilogue, why);
      consumer &&
      succeeded(addContractionGemm(plan, op, *c, consumer, epilogue, why))) {
    plan.contractionEpilogues.insert(consumer);
    remark::passed(op->getLoc(), getFP8GPURemarkOpts(op, "epilogue-fused"))
        << remark::add("{0} fused into the epilogue of {1}",
                       consumer->getName().getStringRef(),
                       op->getName().getStringRef());
    return success();
  }
  remark::missed(op->getLoc(), getFP8GPURemarkOpts(op, "epilogue-not-fused"))
      << remark::add("{0}: nothing fused into its epilogue: {1}",
                     op->getName().getStringRef(), why);
  return addContractionGemm(plan, op, *c, {}, std::nullopt, why);
}
