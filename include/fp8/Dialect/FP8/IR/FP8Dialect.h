//===- FP8Dialect.h - fp8 dialect -------------------------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The fp8 dialect: its enums, attributes and the dialect class. Include
// FP8Ops.h for the operations.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_IR_FP8DIALECT_H
#define FP8_DIALECT_FP8_IR_FP8DIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/APFloat.h"

#include "fp8/Dialect/FP8/IR/FP8Enums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "fp8/Dialect/FP8/IR/FP8Attrs.h.inc"

// After the attributes: the helpers of the dialect's discardable attributes
// return them.
#include "fp8/Dialect/FP8/IR/FP8Dialect.h.inc"

#endif // FP8_DIALECT_FP8_IR_FP8DIALECT_H
