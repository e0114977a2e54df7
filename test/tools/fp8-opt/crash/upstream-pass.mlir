// Upstream MLIR 22 crashes in --canonicalize here: shape.broadcast's folder
// casts its operands' constant attributes to DenseIntElementsAttr without
// checking, and ub.poison folds to a PoisonAttr (llvm/llvm-project#179679).
// fp8-opt names the pass and the op it ran on, exits with 1, prints no stack
// dump and leaves no output file, also when the pass runs on the pass
// manager's worker threads (one per function).

// RUN: not fp8-opt %s --canonicalize -o %t.out 2>&1 \
// RUN:   | FileCheck %s -DINPUT=%s -DOP=builtin.module \
// RUN:     --implicit-check-not="Stack dump" --implicit-check-not=PLEASE
// RUN: not ls %t.out
// RUN: not fp8-opt %s --pass-pipeline="builtin.module(func.func(canonicalize))" 2>&1 \
// RUN:   | FileCheck %s -DINPUT=%s -DOP=func.func --implicit-check-not="Stack dump"
// RUN: not fp8-opt %s --pass-pipeline="builtin.module(func.func(canonicalize))" \
// RUN:   --mlir-disable-threading 2>&1 \
// RUN:   | FileCheck %s -DINPUT=%s -DOP=func.func --implicit-check-not="Stack dump"
// CHECK: [[INPUT]]: error: the input triggered an internal error in pass 'canonicalize' on '[[OP]]': a crash (rerun with --debug-crash for a stack dump)

func.func @first() -> index {
  %0 = shape.const_shape [1, 2, 3] : tensor<3xindex>
  %1 = ub.poison : tensor<3xindex>
  %2 = shape.broadcast %0, %1 : tensor<3xindex>, tensor<3xindex> -> tensor<3xindex>
  %3 = tensor.rank %2 : tensor<3xindex>
  return %3 : index
}

func.func @second() -> index {
  %0 = shape.const_shape [4, 5] : tensor<2xindex>
  %1 = ub.poison : tensor<2xindex>
  %2 = shape.broadcast %0, %1 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %3 = tensor.rank %2 : tensor<2xindex>
  return %3 : index
}
