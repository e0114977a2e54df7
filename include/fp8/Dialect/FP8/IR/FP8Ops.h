//===- FP8Ops.h - fp8 dialect operations ------------------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#ifndef FP8_DIALECT_FP8_IR_FP8OPS_H
#define FP8_DIALECT_FP8_IR_FP8OPS_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "fp8/Dialect/FP8/IR/FP8Ops.h.inc"

#endif // FP8_DIALECT_FP8_IR_FP8OPS_H
