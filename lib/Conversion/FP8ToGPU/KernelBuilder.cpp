//===- KernelBuilder.cpp - Helpers for building NVVM kernels --------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "fp8/Dialect/FP8/Transforms/Passes.h"
#include "fp8/Dialect/FP8/Utils/ScaleRules.h"
#include "fp8/Dialect/FP8/Utils/SoftFloat.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;
using namespace mlir::fp8;

std::optional<ElementRead> mlir::fp8::getElementRead(AffineMap map) {
  if (map.getNumDims() != 2 || map.getNumSymbols() != 0)
    return std::nullopt;
  MLIRContext *ctx = map.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  if (map.getNumResults() == 0)
    return ElementRead::Scalar;
  if (map == AffineMap::get(2, 0, {d(0), d(1)}, ctx))
    return ElementRead::Matrix;
  if (map == AffineMap::get(2, 0, {d(0)}, ctx))
    return ElementRead::Row;
  if (map == AffineMap::get(2, 0, {d(1)}, ctx))
    return ElementRead::Column;
  return std::nullopt;
}

std::string mlir::fp8::getKernelTag(ScaleRuleAttr rule) {
  std::string text;
  llvm::raw_string_ostream(text) << Attribute(rule);
  StringRef body(text);
  body.consume_front("#fp8.rule");
  // Runs of other characters become one underscore between words.
  std::string tag;
  bool pendingSeparator = false;
  for (char c : body) {
    if (!llvm::isAlnum(c)) {
      pendingSeparator = true;
      continue;
    }
    if (pendingSeparator && !tag.empty())
      tag += '_';
    tag += c;
    pendingSeparator = false;
  }
  return tag;
}

LLVM::LLVMFuncOp mlir::fp8::createKernel(OpBuilder &builder, Location loc,
                                         StringRef name,
                                         ArrayRef<KernelParamKind> kinds,
                                         int64_t threads) {
  gpu::GPUModuleOp module = getKernelModule(builder);
  MLIRContext *ctx = builder.getContext();
  builder.setInsertionPointToEnd(module.getBody());
  if (!module.lookupSymbol(kDynamicSharedMemory))
    LLVM::GlobalOp::create(
        builder, loc, LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
        /*isConstant=*/false, LLVM::Linkage::External, kDynamicSharedMemory,
        Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  auto typeOf = [&](KernelParamKind kind) -> Type {
    switch (kind) {
    case KernelParamKind::TensorMap:
      return LLVM::LLVMPointerType::get(ctx);
    case KernelParamKind::Buffer:
      return LLVM::LLVMPointerType::get(ctx, /*addressSpace=*/1);
    case KernelParamKind::I32:
      return builder.getI32Type();
    }
    llvm_unreachable("unknown parameter kind");
  };
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                          llvm::map_to_vector(kinds, typeOf));
  auto func = LLVM::LLVMFuncOp::create(builder, loc, name, type);
  func->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                builder.getUnitAttr());
  func->setAttr("nvvm.maxntid",
                builder.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  // A tensor map is a 128-byte CUtensorMap passed by value as a 64-byte
  // aligned grid constant, which TMA reads in place.
  auto tensorMap = LLVM::LLVMArrayType::get(builder.getI8Type(), 128);
  for (auto [index, kind] : llvm::enumerate(kinds)) {
    if (kind != KernelParamKind::TensorMap)
      continue;
    func.setArgAttr(index, LLVM::LLVMDialect::getByValAttrName(),
                    TypeAttr::get(tensorMap));
    func.setArgAttr(index, LLVM::LLVMDialect::getAlignAttrName(),
                    builder.getI64IntegerAttr(64));
    func.setArgAttr(index, NVVM::NVVMDialect::getGridConstantAttrName(),
                    builder.getUnitAttr());
  }
  func.addEntryBlock(builder);
  builder.setInsertionPointToEnd(module.getBody());
  return func;
}

Value mlir::fp8::loadElement(KernelBuilder &kb, Value base, Type element,
                             Value offset) {
  Type stored = element;
  int64_t bytes = getElementBytes(element);
  if (isSoftFloatType(element) || element.isIndex())
    stored = kb.b.getIntegerType(bytes * 8);
  Value v = kb.load(stored, kb.byteOffset(base, kb.mul(offset, kb.i64(bytes))),
                    bytes);
  if (stored == element)
    return v;
  if (element.isIndex())
    return arith::IndexCastOp::create(kb.b, kb.loc, element, v);
  return kb.bitcast(element, v);
}

SmallVector<Value> mlir::fp8::loadElements(KernelBuilder &kb, Type type,
                                           int64_t count, Value address,
                                           unsigned alignment) {
  if (count == 1)
    return {kb.load(type, address, alignment)};
  Value vector = kb.load(VectorType::get({count}, type), address, alignment);
  SmallVector<Value> elements;
  for (int64_t i = 0; i < count; ++i)
    elements.push_back(
        LLVM::ExtractElementOp::create(kb.b, kb.loc, vector, kb.i32(i)));
  return elements;
}

void mlir::fp8::storeElements(KernelBuilder &kb, ArrayRef<Value> values,
                              Value address, unsigned alignment) {
  if (values.size() == 1)
    return kb.store(values[0], address, alignment);
  auto type = VectorType::get({int64_t(values.size())}, values[0].getType());
  Value vector = LLVM::UndefOp::create(kb.b, kb.loc, type);
  for (auto [i, value] : llvm::enumerate(values))
    vector =
        LLVM::InsertElementOp::create(kb.b, kb.loc, vector, value, kb.i32(i));
  kb.store(vector, address, alignment);
}

Value mlir::fp8::getElementOffset(KernelBuilder &kb, AffineMap map,
                                  RankedTensorType type, ArrayRef<Value> ivs) {
  SmallVector<int64_t> strides(type.getRank(), 1);
  for (int64_t d = type.getRank() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * type.getDimSize(d + 1);
  Value offset = kb.i64(0);
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    unsigned dim = cast<AffineDimExpr>(expr).getPosition();
    offset = kb.add(offset, kb.mul(kb.zext64(ivs[dim]), kb.i64(strides[i])));
  }
  return offset;
}

void mlir::fp8::storeElement(KernelBuilder &kb, Value base, Value value,
                             Value offset) {
  Type element = value.getType();
  int64_t bytes = getElementBytes(element);
  if (isSoftFloatType(element))
    value = kb.bitcast(kb.b.getIntegerType(bytes * 8), value);
  else if (element.isIndex())
    value = arith::IndexCastOp::create(kb.b, kb.loc, kb.i64(), value);
  kb.store(value, kb.byteOffset(base, kb.mul(offset, kb.i64(bytes))), bytes);
}

void mlir::fp8::expandForNVVM(LLVM::LLVMFuncOp kernel) {
  // The scale rules and soft conversions emit fp8.convert and small-float
  // casts: expand them to integer arithmetic, as on CPUs.
  RewritePatternSet patterns(kernel.getContext());
  populateExpandFloatCastsPatterns(patterns);
  (void)applyPatternsGreedily(kernel, std::move(patterns));
  // The NVFP4 rule clamps with arith.minnumf and decodes E4M3 block scales
  // with math.ctlz: the NVVM lowering would call libdevice (__nv_fminf) or
  // leave them alone, while LLVM's intrinsics select to min.f32 and clz.
  SmallVector<Operation *> ops;
  kernel.walk([&](Operation *op) {
    if (isa<math::CountLeadingZerosOp, arith::MinNumFOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Value replacement;
    if (isa<arith::MinNumFOp>(op))
      replacement = LLVM::MinNumOp::create(b, op->getLoc(), op->getOperand(0),
                                           op->getOperand(1));
    else
      replacement = LLVM::CountLeadingZerosOp::create(
          b, op->getLoc(), op->getResultTypes()[0], op->getOperand(0),
          b.getIntegerAttr(b.getI1Type(), 0));
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
  }
}

Value KernelBuilder::cvtSatFinite(Value lo, Value hi, Format format,
                                  Value sourceLo, Value sourceHi,
                                  bool positiveFactors) {
  Type type = format == Format::E4M3 ? Type(b.getType<Float8E4M3FNType>())
                                     : Type(b.getType<Float8E5M2Type>());
  // cvt puts the code of its first operand in the high byte.
  Value codes = NVVM::ConvertF32x2ToF8x2Op::create(
      b, loc, i16(), hi, lo, NVVM::FPRoundingMode::RN,
      NVVM::SaturationMode::SATFINITE, /*relu=*/false, type);
  auto i16Constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getI16IntegerAttr(v));
  };
  auto signBit = [&](Value x, int64_t position) -> Value {
    Value bits = bitcast(i32(), x);
    return arith::TruncIOp::create(
        b, loc, i16(),
        andI(lshr(bits, i32(31 - position)), i32(int64_t(1) << position)));
  };
  if (format == Format::E4M3) {
    // cvt's NaN is 0x7F: a NaN's code takes its source's sign bit. Under
    // positive factors every other code has it already (zeros included).
    if (positiveFactors)
      return orI(codes, orI(signBit(sourceLo, 7), signBit(sourceHi, 15)));
    Value zero = i16Constant(0);
    return orI(codes, orI(select(isNaN(lo), signBit(sourceLo, 7), zero),
                          select(isNaN(hi), signBit(sourceHi, 15), zero)));
  }
  Value low = andI(codes, i16Constant(0xFF));
  Value high = andI(codes, i16Constant(0xFF00));
  low = select(isNaN(lo), getNaNCode(sourceLo, format), low);
  high = select(isNaN(hi), shl(getNaNCode(sourceHi, format), i16Constant(8)),
                high);
  return orI(low, high);
}

Value KernelBuilder::getNaNCode(Value x, Format format) {
  // E5M2 keeps payload bits: those of the element's NaN.
  Value bits = bitcast(i32(), format == Format::E5M2 ? getElementNaN(x) : x);
  Value sign = andI(lshr(bits, i32(24)), i32(0x80));
  Value magnitude = i32(0x7F);
  if (format == Format::E5M2) {
    // 0x7C | the quiet bit | the f32 mantissa's top two bits.
    magnitude = orI(i32(0x7E), andI(lshr(bits, i32(21)), i32(0x3)));
  }
  return arith::TruncIOp::create(b, loc, i16(), orI(sign, magnitude));
}

void mlir::fp8::storeDecodeScale(KernelBuilder &kb, Value scales, Value index,
                                 Value scale) {
  if (scale.getType().isF32()) {
    kb.store(emitReciprocal(kb.b, kb.loc, scale),
             kb.byteOffset(scales, kb.mul(index, kb.i64(4))), 4);
    return;
  }
  kb.store(kb.bitcast(kb.i8(), scale), kb.byteOffset(scales, index), 1);
}

std::string mlir::fp8::getBodyDigest(Block &body) {
  std::string text;
  llvm::raw_string_ostream os(text);
  DenseMap<Value, unsigned> ids;
  for (BlockArgument arg : body.getArguments()) {
    ids[arg] = ids.size();
    os << arg.getType() << ",";
  }
  for (Operation &op : body) {
    os << ";" << op.getName() << "(";
    for (Value operand : op.getOperands()) {
      Attribute constant;
      if (auto it = ids.find(operand); it != ids.end())
        os << "%" << it->second;
      else if (matchPattern(operand, m_Constant(&constant)))
        os << constant;
      else
        os << "?";
      os << ",";
    }
    os << ")" << op.getAttrDictionary() << ":";
    for (Value result : op.getResults()) {
      ids[result] = ids.size();
      os << result.getType() << ",";
    }
  }
  return llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true);
}
