//===- GraphUtils.cpp - Linalg graph helpers shared by passes -------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/Transforms/GraphUtils.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;

bool mlir::fp8::isZeroInit(Value init) {
  if (init.getDefiningOp<tensor::EmptyOp>())
    return true;
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.value(), m_AnyZeroFloat());
  return matchPattern(init, m_AnyZeroFloat());
}

SmallVector<Value> mlir::fp8::getDynamicSizes(OpBuilder &b, Location loc,
                                              Value like) {
  SmallVector<Value> sizes;
  auto type = cast<RankedTensorType>(like.getType());
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      sizes.push_back(tensor::DimOp::create(b, loc, like, i));
  return sizes;
}

Value mlir::fp8::addInF32(OpBuilder &b, Location loc, Value lhs, Value rhs,
                          RankedTensorType resultType) {
  int64_t rank = resultType.getRank();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value out =
      tensor::EmptyOp::create(b, loc, resultType, getDynamicSizes(b, loc, rhs));
  Type element = resultType.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, ValueRange{lhs, rhs}, out,
      ArrayRef<AffineMap>{identity, identity, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        auto widen = [&](Value v) -> Value {
          if (v.getType().isF32())
            return v;
          return arith::ExtFOp::create(nb, nloc, nb.getF32Type(), v);
        };
        Value sum =
            arith::AddFOp::create(nb, nloc, widen(args[0]), widen(args[1]));
        if (!element.isF32())
          sum = arith::TruncFOp::create(nb, nloc, element, sum);
        linalg::YieldOp::create(nb, nloc, sum);
      });
  return generic.getResult(0);
}

Value mlir::fp8::createZeros(OpBuilder &b, Location loc, RankedTensorType type,
                             Value like) {
  Value empty =
      tensor::EmptyOp::create(b, loc, type, getDynamicSizes(b, loc, like));
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

bool mlir::fp8::isLastTwoSwap(ArrayRef<int64_t> permutation) {
  int64_t rank = permutation.size();
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (permutation[i] != i)
      return false;
  return permutation[rank - 2] == rank - 1 && permutation[rank - 1] == rank - 2;
}

Value mlir::fp8::transposeLastTwo(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> permutation = llvm::to_vector(llvm::seq<int64_t>(rank));
  std::swap(permutation[rank - 1], permutation[rank - 2]);
  // Result dimension i is source dimension permutation[i].
  SmallVector<Value> dynamicSizes;
  for (int64_t source : permutation)
    if (type.isDynamicDim(source))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, value, source));
  Value init =
      tensor::EmptyOp::create(b, loc, getTransposedShape(type.getShape()),
                              type.getElementType(), dynamicSizes);
  return linalg::TransposeOp::create(b, loc, value, init, permutation)
      .getResult()[0];
}

Value mlir::fp8::extractSingle(OpBuilder &b, Location loc, Value tensor) {
  int64_t rank = cast<RankedTensorType>(tensor.getType()).getRank();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return tensor::ExtractOp::create(b, loc, tensor,
                                   SmallVector<Value>(rank, zero));
}

Value mlir::fp8::reshapeSingle(OpBuilder &b, Location loc, Value tensor,
                               RankedTensorType type) {
  if (tensor.getType() == type)
    return tensor;
  return tensor::FromElementsOp::create(b, loc, type,
                                        extractSingle(b, loc, tensor));
}

remark::RemarkOpts fp8::getRemarkOpts(Operation *op, StringRef category,
                                      StringRef name) {
  remark::RemarkOpts opts = remark::RemarkOpts::name(name).category(category);
  if (auto function = op->getParentOfType<FunctionOpInterface>())
    opts = opts.function(function.getName());
  return opts;
}

remark::RemarkOpts fp8::getFP8GPURemarkOpts(Operation *op, StringRef name) {
  return getRemarkOpts(op, "fp8-gpu", name);
}

int64_t fp8::getTensorBytes(ArrayRef<int64_t> shape, int64_t bits) {
  int64_t elements = 1;
  for (int64_t extent : shape)
    elements *= extent;
  return llvm::divideCeil(elements * bits, 8);
}

bool fp8::isWideFloat(Type type) {
  return isa<Float32Type, BFloat16Type, Float16Type>(type);
}

bool fp8::hasExpandableShape(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return !shaped ||
         (shaped.hasStaticShape() && isa<VectorType, RankedTensorType>(shaped));
}

bool fp8::isFusableElementwise(Operation *op, std::string &reason,
                               bool indices) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics()) {
    reason = "is not a linalg op on tensors";
    return false;
  }
  if (isa<linalg::TransposeOp, linalg::FillOp>(op)) {
    reason = "is a layout op or a fill";
    return false;
  }
  if (linalgOp.getNumReductionLoops() != 0) {
    reason = "reduces";
    return false;
  }
  if (linalgOp.hasIndexSemantics() && !indices) {
    reason = "reads loop indices";
    return false;
  }
  if (op->getNumRegions() != 1 || op->getRegion(0).empty()) {
    reason = "has no scalar body";
    return false;
  }
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    if (linalgOp.payloadUsesValueFromOperand(&init)) {
      reason = "reads its initial value";
      return false;
    }
  for (AffineMap map : linalgOp.getIndexingMapsArray())
    if (!map.isProjectedPermutation()) {
      reason = "has an indexing map that is not a projected permutation";
      return false;
    }
  for (OpOperand &init : linalgOp.getDpsInitsMutable())
    if (!linalgOp.getMatchingIndexingMap(&init).isPermutation()) {
      reason = "has a result that not every loop indexes";
      return false;
    }
  return true;
}

Value fp8::getPreparedValue(BlockArgument arg) {
  auto function =
      dyn_cast_or_null<FunctionOpInterface>(arg.getOwner()->getParentOp());
  if (!function || arg.getOwner() != &function.getFunctionBody().front())
    return {};
  auto index = function.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                      kPreparedAttrName);
  auto name = function->getAttrOfType<FlatSymbolRefAttr>(kPrepareAttrName);
  if (!index || !name)
    return {};
  auto prepare =
      SymbolTable::lookupNearestSymbolFrom<FunctionOpInterface>(function, name);
  if (!prepare || prepare.isExternal() ||
      !prepare.getFunctionBody().hasOneBlock())
    return {};
  Operation *ret = prepare.getFunctionBody().front().getTerminator();
  if (index.getInt() < 0 || index.getInt() >= ret->getNumOperands())
    return {};
  return ret->getOperand(index.getInt());
}

bool fp8::isTransposeInvariant(Value value) {
  return llvm::count_if(cast<RankedTensorType>(value.getType()).getShape(),
                        [](int64_t d) { return d != 1; }) <= 1;
}

bool fp8::hasWhole16ByteRows(RankedTensorType type) {
  return type.getRank() == 0 ||
         type.getShape().back() * type.getElementTypeBitWidth() % 128 == 0;
}

bool fp8::isGemmOperand(OpOperand &use) {
  auto gemm = dyn_cast<ScaledMatmulOp>(use.getOwner());
  return gemm &&
         (&use == &gemm.getLhsMutable() || &use == &gemm.getRhsMutable());
}

bool fp8::isReadOnlyAsGemmOperand(Value value) {
  return !value.use_empty() && llvm::all_of(value.getUses(), isGemmOperand);
}

std::string fp8::describeForRemarks(Operation *op) {
  std::string text = op->getName().getStringRef().str();
  if (auto name = op->getAttrOfType<StringAttr>("fp8.name"))
    text += " '" + name.str() + "'";
  return text;
}

bool fp8::isTensorDequantize(DequantizeOp op) {
  return op.getGranularity().isTensor() && !op.getGlobalScale() &&
         op.getScale().getType().getElementType().isF32() &&
         op.getType().hasStaticShape();
}

Value fp8::createTensorDequantizeGeneric(OpBuilder &b, DequantizeOp op) {
  assert(isTensorDequantize(op) && "not a per-tensor dequantization");
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op);
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Value scale = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({}, b.getF32Type()), op.getScale(),
      ArrayRef<ReassociationIndices>{});
  Value init =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  auto generic = linalg::GenericOp::create(
      b, loc, type, ValueRange{op.getInput(), scale}, init,
      ArrayRef<AffineMap>{identity,
                          AffineMap::get(type.getRank(), 0, b.getContext()),
                          identity},
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value wide = arith::ExtFOp::create(nb, nloc, nb.getF32Type(), args[0]);
        Value value = arith::MulFOp::create(nb, nloc, wide, args[1]);
        if (!type.getElementType().isF32())
          value =
              arith::TruncFOp::create(nb, nloc, type.getElementType(), value);
        linalg::YieldOp::create(nb, nloc, value);
      });
  return generic.getResult(0);
}
