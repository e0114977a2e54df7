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
// GEMM, and the copy is one pass over the operand, small next to the GEMM's
// reads of it. (16-bit wgmma could read MN-major tiles directly; tf32 and
// the FP8 formats cannot.)
//
//===----------------------------------------------------------------------===//

#include "PlanBuilder.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// A contraction as the GEMM sees it: C[b, M, N] = A[b, M, K] x B[b, N, K]^T
/// with the buffers of K-major operands.
struct Contraction {
  WideElement operands, result;
  int64_t batches = 1, m = 0, n = 0, k = 0;
  int64_t a = -1, b = -1;
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
  if (c.k * bytes % 16 != 0)
    return fail(llvm::formatv("TMA reads operand rows of 16-byte multiples, "
                              "and K = {0} elements of {1} bytes are not",
                              c.k, bytes));
  // The FP8 GEMMs' rule for their results, which the epilogues store alike.
  int64_t resultBytes = c.result == WideElement::F32 ? 4 : 2;
  if (c.n * resultBytes % 16 != 0)
    return fail(llvm::formatv("result rows are 16-byte multiples, and N = "
                              "{0} elements of {1} bytes are not",
                              c.n, resultBytes));
  // Each operand as [batch, rows, K], copied there when stored otherwise.
  auto kMajor = [&](Value operand, AffineMap map,
                    unsigned rows) -> FailureOr<int64_t> {
    SmallVector<int64_t> order = getPermutation(map, withBatch({rows, k}));
    if (order.empty())
      return op->emitError()
             << "fp8 GPU lowering: '" << op->getName()
             << "' has no kernel: an operand does not read exactly the batch, "
                "M or N, and K dimensions";
    if (llvm::equal(order, llvm::seq<int64_t>(0, order.size())))
      return plan.bufferOf(operand);
    return planPermutedCopy(plan, op, operand, order);
  };
  FailureOr<int64_t> a = kMajor(lhs, maps[0], m);
  if (failed(a))
    return failure();
  FailureOr<int64_t> b = kMajor(rhs, maps[1], n);
  if (failed(b))
    return failure();
  c.a = *a;
  c.b = *b;
  return c;
}

/// Records the launch of the GEMM `config` computing `c` into the result of
/// `op`, over tiles of `blockM` x `blockN` and `boxK` elements of K.
template <typename Config>
void addGemmLaunch(PlanBuilder &plan, linalg::LinalgOp op, const Contraction &c,
                   LLVM::LLVMFuncOp kernel, const Config &config,
                   int64_t blockM, int64_t blockN, int64_t boxK) {
  int64_t bits = config.getOperandBits();
  TensorMapParam a =
      plan.getTensorMap(c.a, c.m, c.k, blockM, boxK, bits, c.batches);
  TensorMapParam b =
      plan.getTensorMap(c.b, c.n, c.k, blockN, boxK, bits, c.batches);
  int64_t out = plan.bufferOf(op->getResult(0));
  int64_t tiles =
      c.batches * llvm::divideCeil(c.m, blockM) * llvm::divideCeil(c.n, blockN);
  plan.addKernelLaunch(
      kernel, config, {std::min(tiles, plan.getNumSMs()), 1, 1},
      config.getSharedMemoryBytes(),
      [&](GemmParam param) -> LaunchParam {
        switch (param) {
        case GemmParam::TensorMapA:
          return a;
        case GemmParam::TensorMapB:
          return b;
        case GemmParam::Out:
          return BufferParam{out};
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

LogicalResult mlir::fp8::planContraction(PlanBuilder &plan,
                                         linalg::LinalgOp op) {
  FailureOr<Contraction> c = describeContraction(plan, op);
  if (failed(c))
    return failure();
  std::string reason;
  OpBuilder builder = plan.getKernelBuilder();
  if (plan.getChip() == Chip::SM100a) {
    GemmSM100Config config;
    config.wideOperands = c->operands;
    config.out = c->result;
    config.batched = c->batches > 1;
    config.blockN = c->n > 64 ? 128 : 64;
    if (failed(config.verify(reason)))
      return op->emitError() << "fp8 GPU lowering: " << reason;
    LLVM::LLVMFuncOp kernel =
        buildGemmSM100Kernel(builder, op.getLoc(), config);
    addGemmLaunch(plan, op, *c, kernel, config, GemmSM100Config::kBlockM,
                  config.blockN, config.getStageK());
    return success();
  }
  GemmSM90Config config;
  config.wideOperands = c->operands;
  config.out = c->result;
  config.batched = c->batches > 1;
  config.promoteInterval = 0;
  config.blockN = c->n <= 64 ? 64 : 128;
  if (failed(config.verify(reason)))
    return op->emitError() << "fp8 GPU lowering: " << reason;
  LLVM::LLVMFuncOp kernel = buildGemmSM90Kernel(builder, op.getLoc(), config);
  addGemmLaunch(plan, op, *c, kernel, config, config.blockM, config.blockN,
                config.getKElements(GemmSM90Config::kBlockK));
  return success();
}
