//===- FP8Dialect.cpp - fp8 dialect ---------------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::fp8;

#include "fp8/Dialect/FP8/IR/FP8Dialect.cpp.inc"

void FP8Dialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "fp8/Dialect/FP8/IR/FP8Ops.cpp.inc"
      >();
}

Operation *FP8Dialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

/// An integer attribute whose value `getInt` may read: signless or index.
static IntegerAttr getPlainInteger(Attribute attr) {
  auto integer = dyn_cast<IntegerAttr>(attr);
  if (!integer || isa<BoolAttr>(integer) ||
      !(integer.getType().isSignlessInteger() || integer.getType().isIndex()))
    return {};
  return integer;
}

/// A float attribute with a finite value.
static FloatAttr getFiniteFloat(Attribute attr) {
  auto number = dyn_cast<FloatAttr>(attr);
  if (!number || !std::isfinite(number.getValueAsDouble()))
    return {};
  return number;
}

/// The `fp8.unit_op` keywords, for diagnostics.
static std::string getUnitOpKeywords() {
  SmallVector<StringRef> keywords;
  for (uint32_t i = 0; i <= getMaxEnumValForUnitOpKind(); ++i)
    keywords.push_back(stringifyUnitOpKind(static_cast<UnitOpKind>(i)));
  return llvm::join(keywords, ", ");
}

LogicalResult FP8Dialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  auto expect = [&](bool valid, StringRef what) -> LogicalResult {
    if (valid)
      return success();
    return op->emitError() << "'" << name << "' must be " << what << ", got "
                           << value;
  };

  if (name == RoleAttrHelper::getNameStr())
    return expect(isa<GemmRoleAttr>(value), "a #fp8.gemm_role attribute");
  if (name == GradOperandAttrHelper::getNameStr()) {
    IntegerAttr index = getPlainInteger(value);
    return expect(index && (index.getInt() == 0 || index.getInt() == 1),
                  "0 (the left operand) or 1 (the right operand)");
  }
  if (name == NameAttrHelper::getNameStr()) {
    auto string = dyn_cast<StringAttr>(value);
    return expect(string && !string.empty(), "a non-empty string");
  }
  if (name == AutocastAttrHelper::getNameStr() ||
      name == UnitScaledAttrHelper::getNameStr())
    return expect(isa<UnitAttr>(value), "a unit attribute");
  if (name == UnitOpAttrHelper::getNameStr()) {
    auto keyword = dyn_cast<StringAttr>(value);
    return expect(keyword && symbolizeUnitOpKind(keyword.getValue()),
                  "one of " + getUnitOpKeywords());
  }
  if (name == UnitDimAttrHelper::getNameStr()) {
    IntegerAttr dim = getPlainInteger(value);
    return expect(dim && dim.getInt() >= 0, "a non-negative integer");
  }
  if (name == UnitScaleAttrHelper::getNameStr())
    return expect(static_cast<bool>(getFiniteFloat(value)), "a finite float");
  if (name == ResidualTauAttrHelper::getNameStr()) {
    FloatAttr tau = getFiniteFloat(value);
    return expect(tau && tau.getValueAsDouble() > 0.0,
                  "a positive finite float");
  }
  if (name == PlansAttrHelper::getNameStr()) {
    if (!isa<ModuleOp>(op))
      return op->emitError()
             << "'" << name << "' belongs on a builtin.module only";
    // The plans' contents are the GPU lowering's; here only their shape.
    if (failed(expect(isa<DictionaryAttr>(value),
                      "a dictionary of launch plans by function name")))
      return failure();
    for (NamedAttribute plan : cast<DictionaryAttr>(value))
      if (!isa<DictionaryAttr>(plan.getValue()))
        return op->emitError()
               << "'" << name << "' entry '" << plan.getName().getValue()
               << "' must be a plan dictionary, got " << plan.getValue();
    return success();
  }
  if (name == PrepareGroupAttrHelper::getNameStr() ||
      name == PrepareAttrHelper::getNameStr()) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitError() << "'" << name << "' belongs on a function only";
    if (name == PrepareAttrHelper::getNameStr())
      return expect(isa<FlatSymbolRefAttr>(value),
                    "a flat symbol reference to the prepare function");
    auto string = dyn_cast<StringAttr>(value);
    return expect(string && !string.empty(), "a non-empty string");
  }
  return op->emitError() << "'" << name
                         << "' is not an attribute of the fp8 dialect";
}
