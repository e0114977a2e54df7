// Block scales moved through a transpose (MXFP8 1x32 on the transpose
// becomes 32x1 on the source, codes and scales transposed after) print the
// same codes and scales as quantizing the transposed tensor.
// REQUIRES: mlir-runner
// RUN: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | grep -v base@ > %t.plain
// RUN: fp8-opt %s --fp8-propagate-scales --fp8-cpu-pipeline | %cpu_runner | grep -v base@ > %t.moved
// RUN: diff %t.plain %t.moved
// RUN: fp8-opt %s --fp8-propagate-scales | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s < %t.moved
// IR: fp8.dynamic_quantize %{{.*}} by <32x1> rule <e8m0_rceil> : tensor<40x70xf32>
// CHECK-COUNT-2: [{{[0-9]+}},

func.func private @printMemrefI32(memref<*xi32>)

func.func @main() {
  // x[i, j] = (i * 7 - j * 3) * 2^((i + j) mod 9 - 4): every 32-block has
  // its own amax; 40 and 70 leave ragged blocks.
  %e = tensor.empty() : tensor<40x70xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<40x70xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %jj = arith.index_cast %j : index to i32
    %c7 = arith.constant 7 : i32
    %c3 = arith.constant 3 : i32
    %c9 = arith.constant 9 : i32
    %c4 = arith.constant 4 : i32
    %a = arith.muli %ii, %c7 : i32
    %b = arith.muli %jj, %c3 : i32
    %d = arith.subi %a, %b : i32
    %s = arith.addi %ii, %jj : i32
    %m = arith.remui %s, %c9 : i32
    %p = arith.subi %m, %c4 : i32
    %df = arith.sitofp %d : i32 to f32
    %pf = arith.sitofp %p : i32 to f32
    %scale = math.exp2 %pf : f32
    %v = arith.mulf %df, %scale : f32
    linalg.yield %v : f32
  } -> tensor<40x70xf32>
  %et = tensor.empty() : tensor<70x40xf32>
  %t = linalg.transpose ins(%x : tensor<40x70xf32>) outs(%et : tensor<70x40xf32>) permutation = [1, 0]
  %q, %sc = fp8.dynamic_quantize %t by <1x32> rule <e8m0_rceil> : tensor<70x40xf32> -> tensor<70x40xf8E4M3FN>, tensor<70x2xf8E8M0FNU>
  %qf = tensor.collapse_shape %q [[0, 1]] : tensor<70x40xf8E4M3FN> into tensor<2800xf8E4M3FN>
  %qb = arith.bitcast %qf : tensor<2800xf8E4M3FN> to tensor<2800xi8>
  %qi = arith.extui %qb : tensor<2800xi8> to tensor<2800xi32>
  %qm = bufferization.to_buffer %qi : tensor<2800xi32> to memref<2800xi32>
  %qu = memref.cast %qm : memref<2800xi32> to memref<*xi32>
  call @printMemrefI32(%qu) : (memref<*xi32>) -> ()
  %sf = tensor.collapse_shape %sc [[0, 1]] : tensor<70x2xf8E8M0FNU> into tensor<140xf8E8M0FNU>
  %sb = arith.bitcast %sf : tensor<140xf8E8M0FNU> to tensor<140xi8>
  %si = arith.extui %sb : tensor<140xi8> to tensor<140xi32>
  %sm = bufferization.to_buffer %si : tensor<140xi32> to memref<140xi32>
  %su = memref.cast %sm : memref<140xi32> to memref<*xi32>
  call @printMemrefI32(%su) : (memref<*xi32>) -> ()
  return
}
