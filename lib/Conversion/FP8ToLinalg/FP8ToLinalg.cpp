//===- FP8ToLinalg.cpp - fp8 ops to linalg with reference semantics -------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/FP8ToLinalg/FP8ToLinalg.h"
#include "fp8/Conversion/Passes.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fp8 {
#define GEN_PASS_DEF_CONVERTFP8TOLINALG
#include "fp8/Conversion/Passes.h.inc"
} // namespace mlir::fp8

using namespace mlir;
using namespace mlir::fp8;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The map from a data tensor's iteration space to its scale tensor: `d_i`
/// where a block spans one element, `d_i floordiv b` for blocks of b, and 0
/// for whole dimensions.
AffineMap getScaleMap(MLIRContext *ctx, GranularityAttr granularity,
                      int64_t rank) {
  SmallVector<AffineExpr> results;
  ArrayRef<int64_t> block = granularity.getBlock();
  int64_t lead = rank - static_cast<int64_t>(block.size());
  for (int64_t i = 0; i < rank; ++i) {
    AffineExpr dim = getAffineDimExpr(i, ctx);
    if (granularity.isTensor()) {
      results.push_back(getAffineConstantExpr(0, ctx));
      continue;
    }
    int64_t extent = i < lead ? 1 : block[i - lead];
    if (extent == GranularityAttr::kFull)
      results.push_back(getAffineConstantExpr(0, ctx));
    else if (extent == 1)
      results.push_back(dim);
    else
      results.push_back(dim.floorDiv(extent));
  }
  return AffineMap::get(rank, 0, results, ctx);
}

/// A map to element 0 of a single-element tensor of rank `operandRank`.
AffineMap getSingleElementMap(MLIRContext *ctx, int64_t rank,
                              int64_t operandRank) {
  return AffineMap::get(
      rank, 0,
      SmallVector<AffineExpr>(operandRank, getAffineConstantExpr(0, ctx)), ctx);
}

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

/// tensor.empty of `shape` and `elementType`, with the dynamic extents of
/// `shape` computed by `dynamicSize(i)`.
Value createEmpty(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type elementType, function_ref<Value(int64_t)> dynamicSize) {
  SmallVector<Value> dynamic;
  for (auto [i, extent] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(extent))
      dynamic.push_back(dynamicSize(i));
  return tensor::EmptyOp::create(b, loc, shape, elementType, dynamic);
}

/// tensor.empty with the shape of `like` (whose dynamic extents are read
/// with tensor.dim) and `elementType`.
Value createEmptyLike(OpBuilder &b, Location loc, Value like,
                      Type elementType) {
  auto type = cast<RankedTensorType>(like.getType());
  return createEmpty(b, loc, type.getShape(), elementType, [&](int64_t i) {
    return tensor::DimOp::create(b, loc, like, i).getResult();
  });
}

/// tensor.empty of the scale shape of `data` under `granularity`.
Value createScaleEmpty(OpBuilder &b, Location loc, Value data,
                       GranularityAttr granularity, Type elementType) {
  auto type = cast<RankedTensorType>(data.getType());
  SmallVector<int64_t> shape = granularity.getScaleShape(type.getShape());
  SmallVector<int64_t> blocks = granularity.getBlockShape(type.getShape());
  return createEmpty(b, loc, shape, elementType, [&](int64_t i) -> Value {
    Value dim = tensor::DimOp::create(b, loc, data, i);
    if (blocks[i] == 1)
      return dim;
    Value block = arith::ConstantIndexOp::create(b, loc, blocks[i]);
    return arith::CeilDivUIOp::create(b, loc, dim, block);
  });
}

Value fillWith(OpBuilder &b, Location loc, Value tensor, float value) {
  Value constant = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  return linalg::FillOp::create(b, loc, constant, tensor).getResult(0);
}

Value toF32(OpBuilder &b, Location loc, Value scalar) {
  if (scalar.getType().isF32())
    return scalar;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), scalar);
}

/// An f32 scalar rounded (RNE) to the wide float type `type`.
Value fromF32(OpBuilder &b, Location loc, Type type, Value scalar) {
  if (type.isF32())
    return scalar;
  return arith::TruncFOp::create(b, loc, type, scalar);
}

/// Replaces `op` with `values`, casting each to the declared result type
/// where the lowering computed a more (or less) static shape.
void replaceWithCasts(PatternRewriter &rewriter, Operation *op,
                      ValueRange values) {
  SmallVector<Value> results;
  for (auto [value, type] : llvm::zip_equal(values, op->getResultTypes()))
    results.push_back(
        value.getType() == type
            ? value
            : tensor::CastOp::create(rewriter, op->getLoc(), type, value)
                  .getResult());
  rewriter.replaceOp(op, results);
}

RankedTensorType allOnesType(int64_t rank, Type elementType) {
  return RankedTensorType::get(SmallVector<int64_t>(rank, 1), elementType);
}

//===----------------------------------------------------------------------===//
// fp8.amax
//===----------------------------------------------------------------------===//

struct AmaxLowering : OpRewritePattern<AmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    int64_t rank = op.getInput().getType().getRank();
    AffineMap scaleMap = getScaleMap(ctx, op.getGranularity(), rank);
    // Dims that the scale does not index directly are reduced over.
    SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
    for (auto [i, expr] : llvm::enumerate(scaleMap.getResults()))
      if (!isa<AffineDimExpr>(expr))
        iterators[i] = utils::IteratorType::reduction;
    Value init =
        fillWith(rewriter, loc,
                 createScaleEmpty(rewriter, loc, op.getInput(),
                                  op.getGranularity(), rewriter.getF32Type()),
                 0.0f);
    bool propagate = op.getNanPolicy() == NanPolicy::Propagate;
    auto generic = linalg::GenericOp::create(
        rewriter, loc, init.getType(), op.getInput(), init,
        ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx),
                            scaleMap},
        iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value magnitude =
              math::AbsFOp::create(b, loc, toF32(b, loc, args[0]));
          Value max =
              propagate ? arith::MaximumFOp::create(b, loc, args[1], magnitude)
                              .getResult()
                        : arith::MaxNumFOp::create(b, loc, args[1], magnitude)
                              .getResult();
          linalg::YieldOp::create(b, loc, max);
        });
    replaceWithCasts(rewriter, op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// fp8.compute_scale
//===----------------------------------------------------------------------===//

struct ComputeScaleLowering : OpRewritePattern<ComputeScaleOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ComputeScaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    auto amaxType = op.getAmax().getType();
    int64_t rank = amaxType.getRank();
    SmallVector<Value> inputs{op.getAmax()};
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, ctx)};
    if (Value global = op.getGlobalScale()) {
      inputs.push_back(global);
      maps.push_back(getSingleElementMap(
          ctx, rank, cast<RankedTensorType>(global.getType()).getRank()));
    }
    SmallVector<Value> inits;
    SmallVector<Type> resultTypes;
    for (Value result : op->getResults()) {
      inits.push_back(createEmptyLike(
          rewriter, loc, op.getAmax(),
          cast<RankedTensorType>(result.getType()).getElementType()));
      resultTypes.push_back(inits.back().getType());
      maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    }
    bool withInverse = bool(op.getScaleInv());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, resultTypes, inputs, inits, maps,
        parallelIterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value global = op.getGlobalScale() ? args[1] : Value();
          Value scale = emitScaleRule(b, loc, op.getRule(), op.getFormat(),
                                      args[0], global);
          SmallVector<Value> yields{scale};
          if (withInverse)
            yields.push_back(emitReciprocal(b, loc, scale));
          linalg::YieldOp::create(b, loc, yields);
        });
    replaceWithCasts(rewriter, op, generic.getResults());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// fp8.quantize and fp8.dequantize
//===----------------------------------------------------------------------===//

/// Builds an elementwise linalg.generic over `data` that reads the scale of
/// each element's block (and the global scale, and `extra` operands with the
/// data's shape) and computes one output element with `body`.
Value buildScaledElementwise(
    OpBuilder &b, Location loc, Value data, Value scale, Value globalScale,
    ValueRange extra, GranularityAttr granularity, Type resultElementType,
    function_ref<Value(OpBuilder &, Location, Value, Value, Value, ValueRange)>
        body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(data.getType()).getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs{data, scale};
  SmallVector<AffineMap> maps{identity, getScaleMap(ctx, granularity, rank)};
  if (globalScale) {
    inputs.push_back(globalScale);
    maps.push_back(getSingleElementMap(
        ctx, rank, cast<RankedTensorType>(globalScale.getType()).getRank()));
  }
  for (Value value : extra) {
    inputs.push_back(value);
    maps.push_back(identity);
  }
  maps.push_back(identity);
  Value init = createEmptyLike(b, loc, data, resultElementType);
  size_t extraStart = globalScale ? 3 : 2;
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, init, maps, parallelIterators(rank),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value global = globalScale ? args[2] : Value();
        ValueRange rest = args.slice(extraStart, extra.size());
        linalg::YieldOp::create(nb, nloc,
                                body(nb, nloc, args[0], args[1], global, rest));
      });
  return generic.getResult(0);
}

struct QuantizeLowering : OpRewritePattern<QuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(QuantizeOp op,
                                PatternRewriter &rewriter) const override {
    Type narrow = op.getType().getElementType();
    Rounding rounding = op.getRounding();
    Overflow overflow = op.getOverflow();
    SmallVector<Value> extra;
    if (op.getRbits())
      extra.push_back(op.getRbits());
    Value result = buildScaledElementwise(
        rewriter, op.getLoc(), op.getInput(), op.getScale(),
        op.getGlobalScale(), extra, op.getGranularity(), narrow,
        [&](OpBuilder &b, Location loc, Value x, Value scale, Value global,
            ValueRange rest) -> Value {
          Value m = emitEncodeMultiplier(b, loc, scale, global);
          Value y = emitEncodeProduct(b, loc, toF32(b, loc, x), m);
          Value rbits = rest.empty() ? Value() : rest.front();
          return ConvertOp::create(b, loc, narrow, y, rbits, rounding,
                                   overflow);
        });
    replaceWithCasts(rewriter, op, result);
    return success();
  }
};

struct DequantizeLowering : OpRewritePattern<DequantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(DequantizeOp op,
                                PatternRewriter &rewriter) const override {
    Type wide = op.getType().getElementType();
    Value result = buildScaledElementwise(
        rewriter, op.getLoc(), op.getInput(), op.getScale(),
        op.getGlobalScale(), {}, op.getGranularity(), wide,
        [&](OpBuilder &b, Location loc, Value q, Value scale, Value global,
            ValueRange) -> Value {
          Value d = emitDecodeMultiplier(b, loc, scale, global);
          Value y = arith::MulFOp::create(b, loc, toF32(b, loc, q), d);
          return fromF32(b, loc, wide, y);
        });
    replaceWithCasts(rewriter, op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// fp8.dynamic_quantize
//===----------------------------------------------------------------------===//

/// Rewrites the fused op into the amax, compute_scale and quantize ops it is
/// defined as; those lower by their own patterns.
struct DynamicQuantizeLowering : OpRewritePattern<DynamicQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  /// One quantized copy: data and decode scale.
  std::pair<Value, Value>
  quantizeCopy(PatternRewriter &rewriter, DynamicQuantizeOp op,
               GranularityAttr granularity, RankedTensorType dataType,
               Type scaleElementType, Value globalScale) const {
    Location loc = op.getLoc();
    Value input = op.getInput();
    auto inputType = op.getInput().getType();
    SmallVector<int64_t> scaleShape =
        granularity.getScaleShape(inputType.getShape());
    Type f32 = rewriter.getF32Type();
    auto amaxType = RankedTensorType::get(scaleShape, f32);
    auto scaleType = RankedTensorType::get(scaleShape, scaleElementType);
    Format format = *fp8::getFormat(dataType.getElementType());
    Value amax = AmaxOp::create(rewriter, loc, amaxType, input, granularity,
                                op.getNanPolicy());
    bool f32Scale = isa<Float32Type>(scaleElementType);
    auto computed = ComputeScaleOp::create(
        rewriter, loc, scaleType, f32Scale ? Type(amaxType) : Type(), amax,
        globalScale, op.getRule(), format);
    auto quantized = QuantizeOp::create(
        rewriter, loc, dataType, input, computed.getScale(), globalScale,
        /*rbits=*/Value(), granularity, op.getOverflow(), Rounding::RNE);
    Value decode = f32Scale ? computed.getScaleInv() : computed.getScale();
    return {quantized.getResult(), decode};
  }

  LogicalResult matchAndRewrite(DynamicQuantizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto inputType = op.getInput().getType();
    int64_t rank = inputType.getRank();
    Type f32 = rewriter.getF32Type();
    Type scaleElement = op.getScale().getType().getElementType();

    // NVFP4: the global encode scale S from the amax of the whole tensor.
    Value globalEncode, globalDecode;
    if (op.getGlobalScale()) {
      auto onesType = allOnesType(rank, f32);
      Value globalAmax = AmaxOp::create(
          rewriter, loc, onesType, op.getInput(),
          GranularityAttr::getTensor(getContext()), op.getNanPolicy());
      auto global =
          ComputeScaleOp::create(rewriter, loc, onesType, onesType, globalAmax,
                                 Value(), op.getRule(), Format::E2M1);
      globalEncode = global.getScale();
      globalDecode = reshapeSingle(rewriter, loc, global.getScaleInv(),
                                   op.getGlobalScale().getType());
    }

    auto [data, scale] =
        quantizeCopy(rewriter, op, op.getGranularity(), op.getData().getType(),
                     scaleElement, globalEncode);
    SmallVector<Value> results{data, scale};
    if (globalDecode)
      results.push_back(globalDecode);
    if (GranularityAttr colGranularity = op.getColGranularityAttr()) {
      auto colType = op.getColData().getType();
      auto untransposed = colType;
      if (op.getTransposed())
        untransposed = RankedTensorType::get(
            getTransposedShape(colType.getShape()), colType.getElementType());
      auto [colData, colScale] =
          quantizeCopy(rewriter, op, colGranularity, untransposed, scaleElement,
                       globalEncode);
      if (op.getTransposed()) {
        colData = transposeLastTwo(rewriter, loc, colData);
        colScale = transposeLastTwo(rewriter, loc, colScale);
      }
      results.push_back(colData);
      results.push_back(colScale);
    }
    replaceWithCasts(rewriter, op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// fp8.scaled_matmul
//===----------------------------------------------------------------------===//

/// A scaled matmul with an epilogue as the product, rounded to the
/// epilogue's input type, and a linalg.generic running the epilogue body on
/// every element: the ops the epilogue was fused from.
struct ScaledMatmulEpilogueLowering : OpRewritePattern<ScaledMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScaledMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasEpilogue())
      return failure();
    Location loc = op.getLoc();
    RankedTensorType resultType = op.getResult().getType();
    auto product = ScaledMatmulOp::create(
        rewriter, loc, resultType.clone(op.getEpilogueInputType()),
        /*amax=*/Type(), /*result_scale=*/Type(), op.getLhs(), op.getRhs(),
        op.getLhsScale(), op.getRhsScale(), op.getLhsGlobalScale(),
        op.getRhsGlobalScale(), op.getBias(), /*out_scale=*/Value(),
        /*epilogue_ins=*/ValueRange(), op.getLhsGranularityAttr(),
        op.getRhsGranularityAttr(), op.getTransposeLhsAttr(),
        op.getTransposeRhsAttr(), op.getPromoteIntervalAttr(),
        op.getRecipeAttr(), op.getRoleAttr(),
        /*epilogue_maps=*/ArrayAttr(), /*out_granularity=*/GranularityAttr(),
        /*out_rule=*/ScaleRuleAttr());
    int64_t rank = resultType.getRank();
    SmallVector<Value> inputs{product.getResult()};
    llvm::append_range(inputs, op.getEpilogueIns());
    SmallVector<AffineMap> maps{
        AffineMap::getMultiDimIdentityMap(rank, getContext())};
    // No maps without inputs.
    if (ArrayAttr inputMaps = op.getEpilogueMapsAttr())
      llvm::append_range(maps, inputMaps.getAsValueRange<AffineMapAttr>());
    maps.push_back(maps.front());
    // The yielded elements; an FP8 result encodes them after.
    RankedTensorType yieldedType = resultType.clone(op.getEpilogueResultType());
    Value init = createEmptyLike(rewriter, loc, product.getResult(),
                                 yieldedType.getElementType());
    Block &epilogue = op.getEpilogue().front();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, yieldedType, inputs, init, maps, parallelIterators(rank),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          IRMapping mapping;
          mapping.map(epilogue.getArguments(), args.drop_back());
          for (Operation &bodyOp : op.getEpilogueOps())
            b.clone(bodyOp, mapping);
          linalg::YieldOp::create(
              b, loc, mapping.lookupOrDefault(op.getEpilogueYieldedValue()));
        });
    Value yielded = generic.getResult(0);
    SmallVector<Value> results{yielded};
    if (GranularityAttr granularity = op.getOutGranularityAttr()) {
      // Codes and block scales, as the quantization the GEMM took over.
      auto quantized = DynamicQuantizeOp::create(
          rewriter, loc, resultType, op.getResultScale().getType(),
          /*global_scale=*/Type(), /*col_data=*/Type(), /*col_scale=*/Type(),
          yielded, granularity, /*col_granularity=*/nullptr,
          /*transposed=*/false, op.getOutRuleAttr(), Overflow::Saturate,
          NanPolicy::Ignore, /*scale_layout=*/nullptr,
          /*col_scale_layout=*/nullptr);
      rewriter.replaceOp(op, {quantized.getData(), quantized.getScale()});
      return success();
    }
    if (yieldedType != resultType) {
      Value outScale = reshapeSingle(rewriter, loc, op.getOutScale(),
                                     allOnesType(rank, rewriter.getF32Type()));
      results[0] =
          QuantizeOp::create(rewriter, loc, resultType, yielded, outScale,
                             /*global_scale=*/Value(), /*rbits=*/Value(),
                             GranularityAttr::getTensor(getContext()),
                             Overflow::Saturate, Rounding::RNE);
    }
    if (Value amax = op.getAmax()) {
      // The amax of the yielded elements: of each row ([M, 1], M > 1), or of
      // all of them, reshaped as the op's.
      auto amaxType = cast<RankedTensorType>(amax.getType());
      if (amaxType.getNumElements() != 1) {
        results.push_back(AmaxOp::create(
            rewriter, loc, amaxType, yielded,
            GranularityAttr::get(getContext(), {1, GranularityAttr::kFull}),
            NanPolicy::Ignore));
      } else {
        Value tensorAmax = AmaxOp::create(
            rewriter, loc, allOnesType(rank, rewriter.getF32Type()), yielded,
            GranularityAttr::getTensor(getContext()), NanPolicy::Ignore);
        results.push_back(reshapeSingle(rewriter, loc, tensorAmax, amaxType));
      }
    }
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ScaledMatmulLowering : OpRewritePattern<ScaledMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScaledMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (op.hasEpilogue())
      return failure();
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Type f32 = rewriter.getF32Type();
    auto decode = [&](Value data, Value scale, Value global,
                      GranularityAttr granularity) -> Value {
      auto type = cast<RankedTensorType>(data.getType());
      return DequantizeOp::create(rewriter, loc, type.clone(f32), data, scale,
                                  global, granularity);
    };
    Value lhs = decode(op.getLhs(), op.getLhsScale(), op.getLhsGlobalScale(),
                       op.getLhsGranularity());
    Value rhs = decode(op.getRhs(), op.getRhsScale(), op.getRhsGlobalScale(),
                       op.getRhsGranularity());

    // Iteration space (b?, m, n, k).
    auto resultType = op.getResult().getType();
    int64_t rank = resultType.getRank();
    bool batched = rank == 3;
    int64_t loops = rank + 1;
    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    int64_t m = rank - 2, n = rank - 1, k = rank;
    SmallVector<AffineExpr> lhsExprs, rhsExprs, outExprs;
    if (batched) {
      lhsExprs.push_back(d(0));
      rhsExprs.push_back(d(0));
      outExprs.push_back(d(0));
    }
    lhsExprs.append(op.getTransposeLhs() ? SmallVector<AffineExpr>{d(k), d(m)}
                                         : SmallVector<AffineExpr>{d(m), d(k)});
    rhsExprs.append(op.getTransposeRhs() ? SmallVector<AffineExpr>{d(n), d(k)}
                                         : SmallVector<AffineExpr>{d(k), d(n)});
    outExprs.append({d(m), d(n)});
    SmallVector<AffineMap> maps{AffineMap::get(loops, 0, lhsExprs, ctx),
                                AffineMap::get(loops, 0, rhsExprs, ctx),
                                AffineMap::get(loops, 0, outExprs, ctx)};
    SmallVector<utils::IteratorType> iterators = parallelIterators(loops);
    iterators[k] = utils::IteratorType::reduction;

    // Result extents: M from lhs, N from rhs, the batch from lhs.
    auto dimOf = [&](Value v, int64_t i) -> Value {
      return tensor::DimOp::create(rewriter, loc, v, i);
    };
    Value init = createEmpty(
        rewriter, loc, resultType.getShape(), f32, [&](int64_t i) -> Value {
          if (batched && i == 0)
            return dimOf(lhs, 0);
          if (i == m)
            return dimOf(lhs, op.getTransposeLhs() ? rank - 1 : rank - 2);
          return dimOf(rhs, op.getTransposeRhs() ? rank - 2 : rank - 1);
        });
    init = fillWith(rewriter, loc, init, 0.0f);
    Value acc =
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), ValueRange{lhs, rhs}, init, maps,
            iterators,
            [&](OpBuilder &b, Location loc, ValueRange args) {
              Value product = arith::MulFOp::create(b, loc, args[0], args[1]);
              linalg::YieldOp::create(
                  b, loc,
                  arith::AddFOp::create(b, loc, args[2], product).getResult());
            })
            .getResult(0);

    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    if (Value bias = op.getBias()) {
      AffineMap biasMap = AffineMap::get(rank, 0, {d(rank - 1)}, ctx);
      Value biasInit = createEmptyLike(rewriter, loc, acc, f32);
      acc = linalg::GenericOp::create(
                rewriter, loc, acc.getType(), ValueRange{acc, bias}, biasInit,
                ArrayRef<AffineMap>{identity, biasMap, identity},
                parallelIterators(rank),
                [&](OpBuilder &b, Location loc, ValueRange args) {
                  Value sum = arith::AddFOp::create(b, loc, args[0],
                                                    toF32(b, loc, args[1]));
                  linalg::YieldOp::create(b, loc, sum);
                })
                .getResult(0);
    }

    SmallVector<Value> results;
    Type resultElement = resultType.getElementType();
    if (resultElement.isF32()) {
      results.push_back(acc);
    } else if (fp8::getFormat(resultElement)) {
      Value outScale = reshapeSingle(rewriter, loc, op.getOutScale(),
                                     allOnesType(rank, f32));
      results.push_back(QuantizeOp::create(
          rewriter, loc, resultType, acc, outScale, /*global_scale=*/Value(),
          /*rbits=*/Value(), GranularityAttr::getTensor(ctx),
          Overflow::Saturate, Rounding::RNE));
    } else {
      Value narrowInit = createEmptyLike(rewriter, loc, acc, resultElement);
      results.push_back(
          linalg::GenericOp::create(
              rewriter, loc, resultType, acc, narrowInit,
              ArrayRef<AffineMap>{identity, identity}, parallelIterators(rank),
              [&](OpBuilder &b, Location loc, ValueRange args) {
                linalg::YieldOp::create(
                    b, loc,
                    arith::TruncFOp::create(b, loc, resultElement, args[0])
                        .getResult());
              })
              .getResult(0));
    }
    if (Value amax = op.getAmax()) {
      Value all =
          AmaxOp::create(rewriter, loc, allOnesType(rank, f32), acc,
                         GranularityAttr::getTensor(ctx), NanPolicy::Ignore);
      results.push_back(reshapeSingle(rewriter, loc, all,
                                      cast<RankedTensorType>(amax.getType())));
    }
    replaceWithCasts(rewriter, op, results);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// fp8.update_delayed_scale
//===----------------------------------------------------------------------===//

struct UpdateDelayedScaleLowering : OpRewritePattern<UpdateDelayedScaleOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(UpdateDelayedScaleOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type f32 = rewriter.getF32Type();
    auto historyType = op.getHistory().getType();
    int64_t length = historyType.getDimSize(0);
    Type scaleType = op.getScale().getType();

    Value amax = extractSingle(rewriter, loc, op.getAmax());
    Value scale = extractSingle(rewriter, loc, op.getScale());
    Value zeroIndex = arith::ConstantIndexOp::create(rewriter, loc, 0);

    // Record this step's amax in slot 0 and reduce the window.
    Value recorded = tensor::InsertOp::create(rewriter, loc, amax,
                                              op.getHistory(), zeroIndex);
    Value reduced = amax;
    if (op.getAlgo() == AmaxAlgo::Max) {
      Value all = AmaxOp::create(rewriter, loc, allOnesType(1, f32), recorded,
                                 GranularityAttr::getTensor(getContext()),
                                 NanPolicy::Propagate);
      reduced = extractSingle(rewriter, loc, all);
    }

    // A new scale only from a finite, positive amax.
    float fmax = getFormatInfo(op.getFormat()).maxFinite;
    Value ratio = emitRatioScale(rewriter, loc, reduced, fmax, op.getMargin(),
                                 llvm::APFloat(0.0f));
    Value zero = arith::ConstantOp::create(rewriter, loc,
                                           rewriter.getF32FloatAttr(0.0f));
    Value inf = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getF32FloatAttr(INFINITY));
    Value valid = arith::AndIOp::create(
        rewriter, loc,
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGT, reduced,
                              zero),
        arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, reduced,
                              inf));
    Value newScale =
        arith::SelectOp::create(rewriter, loc, valid, ratio, scale);

    // Rotate left by one (slot 0 moves to slot L-1), then clear slot 0. A
    // history of one slot is only cleared (its slices would be empty).
    Value rolled =
        tensor::EmptyOp::create(rewriter, loc, historyType.getShape(), f32);
    if (length > 1) {
      Value head = tensor::ExtractSliceOp::create(
          rewriter, loc, recorded,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(length - 1)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
      Value tail = tensor::ExtractSliceOp::create(
          rewriter, loc, recorded,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
      rolled = tensor::InsertSliceOp::create(
          rewriter, loc, head, rolled,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(length - 1)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
      rolled = tensor::InsertSliceOp::create(
          rewriter, loc, tail, rolled,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(length - 1)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1)});
    }
    rolled = tensor::InsertOp::create(rewriter, loc, zero, rolled, zeroIndex);

    Value newHistory = rolled;
    if (op.getZeroAmax() == ZeroAmaxPolicy::Skip) {
      // A step whose amax is 0 changes nothing.
      Value isZero = arith::CmpFOp::create(
          rewriter, loc, arith::CmpFPredicate::OEQ, amax, zero);
      newScale =
          arith::SelectOp::create(rewriter, loc, isZero, scale, newScale);
      auto kept = scf::IfOp::create(
          rewriter, loc, isZero,
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, op.getHistory());
          },
          [&](OpBuilder &b, Location loc) {
            scf::YieldOp::create(b, loc, rolled);
          });
      newHistory = kept.getResult(0);
    }
    Value newScaleTensor =
        tensor::FromElementsOp::create(rewriter, loc, scaleType, newScale);
    Value newInverse = tensor::FromElementsOp::create(
        rewriter, loc, scaleType, emitReciprocal(rewriter, loc, newScale));
    rewriter.replaceOp(op, {newHistory, newScaleTensor, newInverse});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// fp8.expand_quantize and fp8.expand_dequantize
//===----------------------------------------------------------------------===//

Value f32Constant(OpBuilder &b, Location loc, float value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

/// An elementwise linalg.generic over `data` that also reads the per-group
/// tensors `groups` (each of the scale shape of `granularity`).
Value buildGroupElementwise(
    OpBuilder &b, Location loc, Value data, ValueRange groups,
    GranularityAttr granularity, Type resultElementType,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(data.getType()).getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs{data};
  llvm::append_range(inputs, groups);
  SmallVector<AffineMap> maps(groups.size() + 1,
                              getScaleMap(ctx, granularity, rank));
  maps.front() = identity;
  maps.push_back(identity);
  Value init = createEmptyLike(b, loc, data, resultElementType);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, init, maps, parallelIterators(rank),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(
            nb, nloc, body(nb, nloc, args[0], args.slice(1, groups.size())));
      });
  return generic.getResult(0);
}

struct ExpandQuantizeLowering : OpRewritePattern<ExpandQuantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExpandQuantizeOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = getContext();
    Value input = op.getInput();
    GranularityAttr granularity = op.getGranularity();
    int64_t rank = op.getInput().getType().getRank();
    Type narrow = op.getData().getType().getElementType();
    float fmax = getFormatInfo(*fp8::getFormat(narrow)).maxFinite;
    int64_t limit = op.getLimit();

    // Per group: the largest finite magnitude and the smallest finite
    // nonzero one (+inf when there is none).
    AffineMap scaleMap = getScaleMap(ctx, granularity, rank);
    SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
    for (auto [i, expr] : llvm::enumerate(scaleMap.getResults()))
      if (!isa<AffineDimExpr>(expr))
        iterators[i] = utils::IteratorType::reduction;
    Type f32 = rewriter.getF32Type();
    float inf = std::numeric_limits<float>::infinity();
    Value maxInit = fillWith(
        rewriter, loc, createScaleEmpty(rewriter, loc, input, granularity, f32),
        0.0f);
    Value minInit =
        fillWith(rewriter, loc,
                 createScaleEmpty(rewriter, loc, input, granularity, f32), inf);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto stats = linalg::GenericOp::create(
        rewriter, loc, TypeRange{maxInit.getType(), minInit.getType()}, input,
        ValueRange{maxInit, minInit},
        ArrayRef<AffineMap>{identity, scaleMap, scaleMap}, iterators,
        [&](OpBuilder &b, Location loc, ValueRange args) {
          Value magnitude =
              math::AbsFOp::create(b, loc, toF32(b, loc, args[0]));
          Value finite =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                                    magnitude, f32Constant(b, loc, inf));
          Value nonzero =
              arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                    magnitude, f32Constant(b, loc, 0.0f));
          Value max = arith::MaxNumFOp::create(b, loc, args[1], magnitude);
          Value min = arith::MinNumFOp::create(b, loc, args[2], magnitude);
          Value counts = arith::AndIOp::create(b, loc, finite, nonzero);
          linalg::YieldOp::create(
              b, loc,
              ValueRange{
                  arith::SelectOp::create(b, loc, finite, max, args[1]),
                  arith::SelectOp::create(b, loc, counts, min, args[2])});
        });
    Value amax = stats.getResult(0);
    Value amin = stats.getResult(1);

    // Per group: the largest exponent whose expansion keeps the smallest
    // magnitude at or above 1/T of the largest. Expansion is monotone in j,
    // so the last passing candidate in ascending order is that exponent.
    Type i8 = rewriter.getI8Type();
    int64_t scaleRank = cast<RankedTensorType>(amax.getType()).getRank();
    AffineMap scaleIdentity = AffineMap::getMultiDimIdentityMap(scaleRank, ctx);
    Value exponentInit = createEmptyLike(rewriter, loc, amax, i8);
    auto exponent = linalg::GenericOp::create(
        rewriter, loc, exponentInit.getType(), ValueRange{amax, amin},
        exponentInit,
        ArrayRef<AffineMap>{scaleIdentity, scaleIdentity, scaleIdentity},
        parallelIterators(scaleRank),
        [&](OpBuilder &b, Location loc, ValueRange args) {
          linalg::YieldOp::create(
              b, loc,
              emitExpansionExponent(b, loc, args[0], args[1], fmax, limit));
        });
    Value exponents = exponent.getResult(0);

    Value data = buildGroupElementwise(
        rewriter, loc, input, {amax, exponents}, granularity, narrow,
        [&](OpBuilder &b, Location loc, Value x, ValueRange group) -> Value {
          return emitExpandEncode(b, loc, toF32(b, loc, x), group[0], group[1],
                                  narrow, limit);
        });
    replaceWithCasts(rewriter, op, {data, amax, exponents});
    return success();
  }
};

struct ExpandDequantizeLowering : OpRewritePattern<ExpandDequantizeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ExpandDequantizeOp op,
                                PatternRewriter &rewriter) const override {
    Type wide = op.getType().getElementType();
    Type narrow = op.getInput().getType().getElementType();
    float fmax = getFormatInfo(*fp8::getFormat(narrow)).maxFinite;
    Value result = buildGroupElementwise(
        rewriter, op.getLoc(), op.getInput(), {op.getAmax(), op.getExponent()},
        op.getGranularity(), wide,
        [&](OpBuilder &b, Location loc, Value q, ValueRange group) -> Value {
          return fromF32(b, loc, wide,
                         emitExpandDecode(b, loc, toF32(b, loc, q), group[0],
                                          group[1], fmax));
        });
    replaceWithCasts(rewriter, op, result);
    return success();
  }
};

struct ConvertFP8ToLinalgPass
    : fp8::impl::ConvertFP8ToLinalgBase<ConvertFP8ToLinalgPass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    configureFP8ToLinalgTarget(target);
    RewritePatternSet patterns(&getContext());
    populateFP8ToLinalgPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::fp8::populateFP8ToLinalgPatterns(RewritePatternSet &patterns) {
  patterns
      .add<AmaxLowering, ComputeScaleLowering, QuantizeLowering,
           DequantizeLowering, DynamicQuantizeLowering, ScaledMatmulLowering,
           ScaledMatmulEpilogueLowering, UpdateDelayedScaleLowering,
           ExpandQuantizeLowering, ExpandDequantizeLowering>(
          patterns.getContext());
}

void mlir::fp8::configureFP8ToLinalgTarget(ConversionTarget &target) {
  target.addIllegalDialect<FP8Dialect>();
  target.addLegalOp<ConvertOp>();
  target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                         math::MathDialect, scf::SCFDialect,
                         tensor::TensorDialect>();
}
