//===- Elementwise.cpp - Kernels of elementwise linalg ops ----------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The ops around the GEMMs of a framework graph (bias adds, activations,
// casts, fills, masks) as simple kernels: thread i of a grid-stride loop
// computes element i of the iteration space, reading each operand through
// its indexing map and running a clone of the op's scalar body, whose
// linalg.index ops read the element's loop indices.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Conversion/FP8ToGPU/Kernels.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Dialect/FP8/Utils/SoftFloat.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

constexpr int64_t kThreads = 256;

/// Element types a kernel loads and stores: what LLVM stores as such, and
/// small floats as their bytes.
bool isLoadable(Type type) {
  return type.isF32() || type.isF16() || type.isBF16() || type.isF64() ||
         type.isIntOrIndex() || isSoftFloatType(type);
}

/// arith.maxnumf / minnumf without libdevice: NaN loses, else the larger
/// (smaller) by comparison `Ordered` (OGT or OLT).
template <typename NumOp, arith::CmpFPredicate Ordered>
struct ExpandNumMinMax : OpRewritePattern<NumOp> {
  using OpRewritePattern<NumOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(NumOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value a = op.getLhs(), b = op.getRhs();
    auto isNaN = [&](Value v) {
      return arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::UNO, v,
                                   v);
    };
    Value wins = arith::CmpFOp::create(rewriter, loc, Ordered, a, b);
    Value pick = arith::SelectOp::create(rewriter, loc, wins, a, b);
    // b NaN: the comparison is false and b would win; take a then.
    pick = arith::SelectOp::create(rewriter, loc, isNaN(b), a, pick);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, isNaN(a), b, pick);
    return success();
  }
};

/// math.absf by clearing the sign bit; math.fma as the LLVM intrinsic
/// (convert-gpu-to-nvvm would call libdevice for both).
struct ExpandAbsF : OpRewritePattern<math::AbsFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::AbsFOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!isa<FloatType>(type))
      return failure();
    unsigned width = type.getIntOrFloatBitWidth();
    Type bits = rewriter.getIntegerType(width);
    Location loc = op.getLoc();
    Value raw = arith::BitcastOp::create(rewriter, loc, bits, op.getOperand());
    Value mask = arith::ConstantOp::create(
        rewriter, loc,
        rewriter.getIntegerAttr(bits, APInt::getSignedMaxValue(width)));
    Value cleared = arith::AndIOp::create(rewriter, loc, raw, mask);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, type, cleared);
    return success();
  }
};
/// math.copysign of f32 by the sign bit (convert-gpu-to-nvvm would call
/// libdevice).
struct ExpandCopySign : OpRewritePattern<math::CopySignOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::CopySignOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    auto constant = [&](uint32_t bits) {
      return arith::ConstantOp::create(
          rewriter, loc,
          rewriter.getI32IntegerAttr(static_cast<int32_t>(bits)));
    };
    Value magnitude = arith::AndIOp::create(
        rewriter, loc,
        arith::BitcastOp::create(rewriter, loc, i32, op.getLhs()),
        constant(0x7FFFFFFFu));
    Value sign = arith::AndIOp::create(
        rewriter, loc,
        arith::BitcastOp::create(rewriter, loc, i32, op.getRhs()),
        constant(0x80000000u));
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(
        op, op.getType(), arith::OrIOp::create(rewriter, loc, magnitude, sign));
    return success();
  }
};

struct ExpandFma : OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<FloatType>(op.getType()))
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::FMAOp>(op, op.getA(), op.getB(),
                                             op.getC());
    return success();
  }
};

/// math.rsqrt as 1 / sqrt(x), as the CPU reference computes it
/// (convert-math-to-llvm).
struct ExpandRsqrt : OpRewritePattern<math::RsqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RsqrtOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<FloatType>(op.getType());
    if (!type)
      return failure();
    Location loc = op.getLoc();
    Value one = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getFloatAttr(type, 1.0));
    Value sqrt = math::SqrtOp::create(rewriter, loc, op.getOperand());
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, one, sqrt);
    return success();
  }
};

/// The f32 square root and roundings to integral values (which the
/// polynomial approximations of exp and others emit) as calls of LLVM's
/// intrinsic `name`, which selects to sqrt.rn or cvt.rmi/rpi/rni/rzi:
/// convert-gpu-to-nvvm would turn the LLVM dialect's ops for them into
/// libdevice calls, while a call of the intrinsic by name stays.
template <typename MathOp>
struct MathToIntrinsic : OpRewritePattern<MathOp> {
  MathToIntrinsic(MLIRContext *context, StringRef name)
      : OpRewritePattern<MathOp>(context), name(name) {}
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return failure();
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr(name), op->getOperands());
    return success();
  }
  std::string name;
};

} // namespace

/// Whether `value`, captured by the body of `op`, is a tensor the body reads
/// by tensor.extract alone, of a static shape and of elements kernels load.
static bool isGatheredTensor(Operation *op, Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !isLoadable(type.getElementType()))
    return false;
  return llvm::all_of(value.getUses(), [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (!op->isProperAncestor(user))
      return true;
    auto extract = dyn_cast<tensor::ExtractOp>(user);
    return extract && use.getOperandNumber() == 0;
  });
}

LogicalResult mlir::fp8::verifyClonableBody(Operation *op, std::string &reason,
                                            bool indices, bool gathers) {
  // Values the body captures from outside must be constants (cloned), or
  // with `gathers` tensors it reads by tensor.extract.
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(op->getRegion(0), captured);
  for (Value value : captured) {
    if (matchPattern(value, m_Constant()) ||
        (gathers && isGatheredTensor(op, value)))
      continue;
    reason = "its body uses a value defined outside that is not a constant";
    return failure();
  }
  // Every op but the last, the body's yield (a terminator of linalg ops,
  // fp8.yield of an epilogue).
  Block &body = op->getRegion(0).front();
  for (Operation &bodyOp :
       llvm::make_range(body.begin(), std::prev(body.end()))) {
    if (isa<linalg::IndexOp>(bodyOp)) {
      if (indices)
        continue;
      reason = "its body reads loop indices";
      return failure();
    }
    if (auto extract = dyn_cast<tensor::ExtractOp>(bodyOp)) {
      if (gathers && captured.contains(extract.getTensor()))
        continue;
      reason = "its body reads elements of a tensor by tensor.extract";
      return failure();
    }
    if (!isa<arith::ArithDialect, math::MathDialect>(bodyOp.getDialect()) ||
        bodyOp.getNumRegions() != 0) {
      reason = ("its body has '" + bodyOp.getName().getStringRef() +
                "', which GPU kernels do not compute")
                   .str();
      return failure();
    }
  }
  return success();
}

Operation *mlir::fp8::expandClonedBodyForNVVM(LLVM::LLVMFuncOp kernel) {
  // No libdevice: math functions by polynomials (erf and exp by the ones
  // docs/numerics.md specifies, which the CPU pipeline computes too), small
  // floats by integer code, min/max by comparison.
  RewritePatternSet patterns(kernel.getContext());
  populateExpandMathPatterns(patterns, /*benefit=*/2);
  populateUnspecifiedMathPatterns(patterns);
  populateExpandFloatCastsPatterns(patterns);
  MLIRContext *context = kernel.getContext();
  patterns.add<ExpandNumMinMax<arith::MaxNumFOp, arith::CmpFPredicate::OGT>,
               ExpandNumMinMax<arith::MinNumFOp, arith::CmpFPredicate::OLT>,
               ExpandAbsF, ExpandCopySign, ExpandFma, ExpandRsqrt>(context);
  patterns.add<MathToIntrinsic<math::SqrtOp>>(context, "llvm.sqrt.f32");
  patterns.add<MathToIntrinsic<math::FloorOp>>(context, "llvm.floor.f32");
  patterns.add<MathToIntrinsic<math::CeilOp>>(context, "llvm.ceil.f32");
  patterns.add<MathToIntrinsic<math::RoundEvenOp>>(context,
                                                   "llvm.roundeven.f32");
  patterns.add<MathToIntrinsic<math::TruncOp>>(context, "llvm.trunc.f32");
  (void)applyPatternsGreedily(kernel, std::move(patterns));
  // The small-float casts' math.ctlz as LLVM's intrinsic.
  expandForNVVM(kernel);
  return findLibdeviceOp(kernel);
}

Operation *mlir::fp8::findLibdeviceOp(LLVM::LLVMFuncOp kernel) {
  // The pipeline does not link libdevice.
  Operation *left = nullptr;
  kernel.walk([&](Operation *inner) {
    if (!isa<math::MathDialect>(inner->getDialect()))
      return WalkResult::advance();
    left = inner;
    return WalkResult::interrupt();
  });
  return left;
}

SmallVector<Value> mlir::fp8::getGatheredTensors(Operation *op) {
  SetVector<Value> gathered;
  op->walk([&](tensor::ExtractOp extract) {
    Value tensor = extract.getTensor();
    if (!op->isAncestor(tensor.getParentRegion()->getParentOp()))
      gathered.insert(tensor);
  });
  return gathered.takeVector();
}

/// Maps each constant that `region` captures from outside (see
/// verifyClonableBody) to a clone at the builder's insertion point.
static void cloneCapturedConstants(OpBuilder &builder, Region &region,
                                   IRMapping &mapping) {
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(region, captured);
  for (Value value : captured)
    if (matchPattern(value, m_Constant()))
      mapping.map(value, builder.clone(*value.getDefiningOp())->getResult(0));
}

SmallVector<Value> mlir::fp8::cloneBody(OpBuilder &builder, Block &body,
                                        IRMapping &mapping,
                                        ArrayRef<Value> indices,
                                        Operation *skip, GatherFn gather) {
  cloneCapturedConstants(builder, *body.getParent(), mapping);
  // Every op but the last, the body's yield (a terminator of linalg ops,
  // fp8.yield of an epilogue, which is no terminator).
  for (Operation &op : llvm::make_range(body.begin(), std::prev(body.end()))) {
    if (&op == skip)
      continue;
    if (auto extract = dyn_cast<tensor::ExtractOp>(op)) {
      assert(gather && "a tensor.extract in a body cloned without gathers");
      SmallVector<Value> at =
          llvm::map_to_vector(extract.getIndices(), [&](Value v) {
            return mapping.lookupOrDefault(v);
          });
      mapping.map(extract.getResult(), gather(extract, at));
      continue;
    }
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      Value iv = indices[index.getDim()];
      assert(iv && "a linalg.index of a loop without an index");
      mapping.map(index.getResult(),
                  arith::IndexCastOp::create(builder, op.getLoc(),
                                             builder.getIndexType(), iv));
      continue;
    }
    builder.clone(op, mapping);
  }
  return llvm::map_to_vector(body.back().getOperands(), [&](Value v) {
    return mapping.lookupOrDefault(v);
  });
}

FailureOr<LLVM::LLVMFuncOp>
mlir::fp8::finishClonedBodyKernel(OpBuilder &builder, Location loc,
                                  LLVM::LLVMFuncOp kernel,
                                  std::string &reason) {
  LLVM::ReturnOp::create(builder, loc, ValueRange{});
  if (Operation *left = expandClonedBodyForNVVM(kernel)) {
    reason = ("'" + left->getName().getStringRef() +
              "' has no GPU lowering without libdevice")
                 .str();
    kernel.erase();
    return failure();
  }
  return kernel;
}

/// Whether the elementwise kernel of `op` loads `operand`: a tensor that
/// the body reads (an init it ignores, such as a tensor.empty, is not).
static bool isLoadedOperand(Operation *op, OpOperand &operand) {
  if (!isa<RankedTensorType>(operand.get().getType()))
    return false;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return !linalgOp || !linalgOp.getMatchingBlockArgument(&operand).use_empty();
}

SmallVector<Value> mlir::fp8::getElementwiseParams(Operation *op) {
  SmallVector<Value> params;
  for (OpOperand &operand : op->getOpOperands())
    if (isLoadedOperand(op, operand))
      params.push_back(operand.get());
  llvm::append_range(params, getGatheredTensors(op));
  llvm::append_range(params, op->getResults());
  return params;
}

FailureOr<LLVM::LLVMFuncOp>
mlir::fp8::buildElementwiseKernel(OpBuilder &builder, Operation *op,
                                  StringRef name, std::string &reason) {
  // tensor.generate: no operands, the indices as the body's arguments.
  auto generate = dyn_cast<tensor::GenerateOp>(op);
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  SmallVector<int64_t> ranges;
  if (generate) {
    llvm::append_range(ranges, generate.getType().getShape());
    if (!isLoadable(generate.getType().getElementType())) {
      reason = "its elements are of an unsupported type";
      return failure();
    }
  } else {
    if (!linalgOp || !linalgOp.hasPureTensorSemantics()) {
      reason = "not a linalg op on tensors";
      return failure();
    }
    if (linalgOp.getNumReductionLoops() != 0) {
      reason = "it reduces (only elementwise linalg ops get a generic kernel)";
      return failure();
    }
    for (AffineMap map : linalgOp.getIndexingMapsArray())
      if (!map.isProjectedPermutation()) {
        reason = "an indexing map is not a projected permutation";
        return failure();
      }
    ranges = linalgOp.getStaticLoopRanges();
  }
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    reason = "its iteration space is not static";
    return failure();
  }
  int64_t total = 1;
  for (int64_t r : ranges)
    total *= r;
  if (total >= (int64_t(1) << 31)) {
    reason = "it has 2^31 elements or more";
    return failure();
  }
  // Tensor operands are loaded; scalar operands must be constants (cloned).
  SmallVector<OpOperand *> tensorOperands;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.get().getType());
    if (type) {
      if (!isLoadable(type.getElementType())) {
        reason = "an operand has elements of an unsupported type";
        return failure();
      }
      tensorOperands.push_back(&operand);
      continue;
    }
    if (!matchPattern(operand.get(), m_Constant())) {
      reason = "a scalar operand is not a constant";
      return failure();
    }
  }
  if (failed(verifyClonableBody(op, reason, /*indices=*/true,
                                /*gathers=*/true)))
    return failure();

  if (LLVM::LLVMFuncOp existing = lookupKernel(builder, name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  Location loc = op->getLoc();
  SmallVector<KernelParamKind> params(getElementwiseParams(op).size(),
                                      KernelParamKind::Buffer);
  LLVM::LLVMFuncOp func = createKernel(builder, loc, name, params, kThreads);
  Block &entry = func.getBody().front();
  builder.setInsertionPointToStart(&entry);
  KernelBuilder kb(builder, loc);

  auto offsetOf = [&](AffineMap map, RankedTensorType type,
                      ArrayRef<Value> ivs) {
    return getElementOffset(kb, map, type, ivs);
  };
  auto load = [&](Value base, Type element, Value offset) {
    return loadElement(kb, base, element, offset);
  };
  auto store = [&](Value base, Value v, Value offset) {
    storeElement(kb, base, v, offset);
  };

  Value first = kb.add(kb.mul(kb.blockId(), kb.i32(kThreads)), kb.threadId());
  Value stride = kb.mul(kb.gridDim(), kb.i32(kThreads));
  kb.forLoop(
      first, kb.i32(total), stride, ValueRange{},
      [&](Value linear, ValueRange) -> SmallVector<Value> {
        // Loop indices, innermost fastest.
        SmallVector<Value> ivs(ranges.size());
        Value rest = linear;
        for (int64_t d = ranges.size() - 1; d >= 0; --d) {
          ivs[d] = kb.urem(rest, kb.i32(ranges[d]));
          rest = kb.udiv(rest, kb.i32(ranges[d]));
        }
        IRMapping mapping;
        Block *body = &op->getRegion(0).front();
        if (generate)
          for (auto [arg, iv] : llvm::zip(body->getArguments(), ivs))
            mapping.map(arg, arith::IndexCastOp::create(
                                 builder, loc, builder.getIndexType(), iv));
        // Parameters in the order of getElementwiseParams.
        unsigned param = 0;
        for (OpOperand &operand : op->getOpOperands()) {
          BlockArgument arg = body->getArgument(operand.getOperandNumber());
          auto type = dyn_cast<RankedTensorType>(operand.get().getType());
          if (!type) {
            mapping.map(
                arg,
                builder.clone(*operand.get().getDefiningOp())->getResult(0));
            continue;
          }
          if (!isLoadedOperand(op, operand))
            continue;
          Value base = entry.getArgument(param++);
          AffineMap map = linalgOp.getMatchingIndexingMap(&operand);
          mapping.map(
              arg, load(base, type.getElementType(), offsetOf(map, type, ivs)));
        }
        // The tensors the body reads by tensor.extract: parameters after
        // the loaded operands, each element at the row-major offset of its
        // indices (within the tensor: fp8-fuse-elementwise clamps them).
        SmallVector<Value> gathered = getGatheredTensors(op);
        auto gather = [&](tensor::ExtractOp extract, ValueRange at) {
          RankedTensorType type = extract.getTensor().getType();
          Value base = entry.getArgument(
              param + llvm::find(gathered, extract.getTensor()) -
              gathered.begin());
          // The indices as i32 loop indices of the identity map (tensors
          // have fewer than 2^31 elements).
          SmallVector<Value> ivs32 =
              llvm::map_to_vector(at, [&](Value index) -> Value {
                return arith::IndexCastOp::create(builder, loc, kb.i32(),
                                                  index);
              });
          AffineMap identity = AffineMap::getMultiDimIdentityMap(
              type.getRank(), builder.getContext());
          return load(base, type.getElementType(),
                      offsetOf(identity, type, ivs32));
        };
        // Values the body captures from outside are constants (cloned) or
        // gathered tensors; linalg.index reads the thread's loop indices (a
        // causal mask).
        SmallVector<Value> yielded =
            cloneBody(builder, *body, mapping, ivs, /*skip=*/nullptr, gather);
        param += gathered.size();
        for (auto [i, result] : llvm::enumerate(op->getResults())) {
          auto type = cast<RankedTensorType>(result.getType());
          AffineMap map = generate ? AffineMap::getMultiDimIdentityMap(
                                         ranges.size(), op->getContext())
                                   : linalgOp.getIndexingMapMatchingResult(
                                         cast<OpResult>(result));
          store(entry.getArgument(param + i), yielded[i],
                offsetOf(map, type, ivs));
        }
        return {};
      },
      /*unsignedBounds=*/true);
  return finishClonedBodyKernel(builder, loc, func, reason);
}
