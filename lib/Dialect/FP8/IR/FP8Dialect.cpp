//===- FP8Dialect.cpp - fp8 dialect ---------------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Dialect/FP8/IR/FP8Ops.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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
