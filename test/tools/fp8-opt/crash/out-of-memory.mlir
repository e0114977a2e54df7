// tensor.from_elements of 2^31 - 1 elements makes the upstream parser build a
// list of 2^31 - 1 types (16 GiB) before it says that one operand is too few.
// Under a 2 GiB address-space limit: the default --max-materialized-elements
// rejects the op before the parser runs; with no limit, the failed allocation
// is one diagnostic and exit status 1 instead of an abort with a stack dump.
// ASan reserves terabytes of address space: no ulimit -v with sanitizers.
// UNSUPPORTED: sanitizers

// RUN: ulimit -v 2097152
// RUN: not fp8-opt %s 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not fp8-opt %s --max-materialized-elements=0 -o %t.out 2>&1 \
// RUN:   | FileCheck %s -DINPUT=%s --check-prefix=OOM \
// RUN:     --implicit-check-not="Stack dump" --implicit-check-not="LLVM ERROR"
// RUN: not ls %t.out

// LIMIT: error: 'tensor.from_elements' of 2147483647 elements exceeds the 16777216 elements
// OOM: [[INPUT]]: error: out of memory while parsing (Allocation failed): the input needs more memory than the process may use

func.func @f(%a: f32) -> tensor<2147483647xf32> {
  %0 = tensor.from_elements %a : tensor<2147483647xf32>
  return %0 : tensor<2147483647xf32>
}
