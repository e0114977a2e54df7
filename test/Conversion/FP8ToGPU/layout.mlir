// Layout ops become copies between strided views (the layout kernels), or
// views without a launch. A copy whose innermost dimension is contiguous on
// both sides moves up to 16 bytes per access; one that changes the innermost
// dimension goes through a shared-memory tile; reshapes are views.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: not grep __nv_ %t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=HEADS --input-file=%t/heads.json
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a | FileCheck %s --check-prefix=PLAN

// One kernel per element size, rank and kind, in the order of first use.
// The tiled transpose: a warp loads a row of consecutive input elements
// into a padded shared tile and stores a row of consecutive output
// elements; 2-byte elements move two per lane in 64 x 64 tiles, by 4-byte
// accesses where both are inside and aligned (2-byte ones otherwise).
// CHECK-LABEL: .entry fp8_layout_transpose_b2_r3_d1(
// CHECK-DAG: ld.global.b32
// CHECK-DAG: ld.global.b16
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK-NOT: bar.sync
// CHECK: ld.shared.b16
// CHECK-DAG: st.global.v2.b16
// CHECK-DAG: st.global.b16
// CHECK: ret;
// CHECK-LABEL: .entry fp8_layout_copy_b4_r2_v4(
// CHECK-NOT: .shared
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
// CHECK-LABEL: .entry fp8_layout_transpose_b4_r2_d0(
// CHECK-LABEL: .entry fp8_layout_transpose_b1_r2_d0(
// CHECK: ld.global.b8
// CHECK: st.global.b8
// CHECK-LABEL: .entry fp8_layout_copy_b4_r3_v4(
// CHECK-LABEL: .entry fp8_layout_copy_b2_r2_v8(
// CHECK: ld.global.v4.b32
// CHECK: st.global.v4.b32
// Dense fp8 rows of 40 codes copied into rows padded to 48 for a GEMM, 8
// codes at a time.
// CHECK-LABEL: .entry fp8_layout_copy_b1_r2_v8(
// CHECK: ld.global.v2.b32
// CHECK: st.global.v2.b32
// CHECK-LABEL: .entry fp8_layout_transpose_b4_r3_d0(
// CHECK-LABEL: .entry fp8_layout_transpose_b2_r2_d0(

// K^T per head: the two inner dimensions swap, tiles over the batch.
// PLAN-LABEL: batched_transpose = {buffers
// PLAN-SAME: grid = [8, 1, 1], kernel = "fp8_layout_transpose_b2_r3_d1"
func.func @batched_transpose(%x: tensor<8x64x32xbf16>) -> tensor<8x32x64xbf16> {
  %e = tensor.empty() : tensor<8x32x64xbf16>
  %t = linalg.transpose ins(%x : tensor<8x64x32xbf16>) outs(%e : tensor<8x32x64xbf16>) permutation = [0, 2, 1]
  return %t : tensor<8x32x64xbf16>
}

// A bias broadcast over rows reads the bias with stride 0 along M; one
// broadcast along columns reads the column with stride 1 along M.
// PLAN-LABEL: broadcasts = {buffers
// PLAN-SAME: kernel = "fp8_layout_copy_b4_r2_v4"
// PLAN-SAME: params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}]
// PLAN-SAME: kernel = "fp8_layout_transpose_b4_r2_d0"
// PLAN-SAME: params = [{buffer = 1 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}]
func.func @broadcasts(%bias: tensor<128xf32>, %col: tensor<64xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
  %e0 = tensor.empty() : tensor<64x128xf32>
  %rows = linalg.broadcast ins(%bias : tensor<128xf32>) outs(%e0 : tensor<64x128xf32>) dimensions = [0]
  %e1 = tensor.empty() : tensor<64x128xf32>
  %cols = linalg.broadcast ins(%col : tensor<64xf32>) outs(%e1 : tensor<64x128xf32>) dimensions = [1]
  return %rows, %cols : tensor<64x128xf32>, tensor<64x128xf32>
}

// fp8 codes that no quantization in the graph wrote are transposed by the
// tiled kernel too.
// PLAN-LABEL: codes = {buffers
// PLAN-SAME: kernel = "fp8_layout_transpose_b1_r2_d0"
func.func @codes(%q: tensor<64x128xf8E4M3FN>) -> tensor<128x64xf8E4M3FN> {
  %e = tensor.empty() : tensor<128x64xf8E4M3FN>
  %t = linalg.transpose ins(%q : tensor<64x128xf8E4M3FN>) outs(%e : tensor<128x64xf8E4M3FN>) permutation = [1, 0]
  return %t : tensor<128x64xf8E4M3FN>
}

// Splitting heads, [S, D] -> [S, H, Dh] -> [H, S, Dh]: the innermost
// dimension stays, so rows of Dh elements move 16 bytes at a time.
// HEADS: "grid": [
// HEADS-NEXT: 8,
// HEADS: "kernel": "fp8_layout_copy_b4_r3_v4"
// HEADS: "shared_bytes": 0
// PLAN-LABEL: heads = {buffers
// PLAN-SAME: grid = [8, 1, 1], kernel = "fp8_layout_copy_b4_r3_v4"
// PLAN-SAME: params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 4 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 2048 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 1 : i64}]
// PLAN-SAME: shared_bytes = 0 : i64}], workspace_bytes = {{[0-9]+}} : i64}
func.func @heads(%x: tensor<64x128xf32>) -> tensor<4x64x32xf32> {
  %s = tensor.expand_shape %x [[0], [1, 2]] output_shape [64, 4, 32] : tensor<64x128xf32> into tensor<64x4x32xf32>
  %e = tensor.empty() : tensor<4x64x32xf32>
  %t = linalg.transpose ins(%s : tensor<64x4x32xf32>) outs(%e : tensor<4x64x32xf32>) permutation = [1, 0, 2]
  return %t : tensor<4x64x32xf32>
}

// Inserting into an input copies the input first.
// PLAN-LABEL: insert_into_input = {buffers
// PLAN-SAME: {bytes = 16384 : i64, from = 0 : i64, kind = "copy", to = 2 : i64}
// PLAN-SAME: kernel = "fp8_layout_copy_b2_r2_v8"
func.func @insert_into_input(%x: tensor<64x128xbf16>, %h: tensor<64x32xbf16>) -> tensor<64x128xbf16> {
  %r = tensor.insert_slice %h into %x[0, 64] [64, 32] [1, 1] : tensor<64x32xbf16> into tensor<64x128xbf16>
  return %r : tensor<64x128xbf16>
}

// Codes in rows of 40 bytes that a reshape reads dense and a GEMM reads
// with TMA: the quantization writes them dense, the reshape is a view, and
// a layout kernel copies them for the GEMM into rows padded to 48 bytes.
// PLAN-LABEL: padded = {buffers
// PLAN-SAME: kernel = "fp8_layout_copy_b1_r2_v8"
// PLAN-SAME: params = [{buffer = [[CODES:[0-9]+]] : i64, kind = "buffer"}, {buffer = [[COPY:[0-9]+]] : i64, kind = "buffer"}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 40 : i64}, {kind = "i32", value = 40 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 48 : i64}, {kind = "i32", value = 1 : i64}]
// PLAN-SAME: kernel = "fp8_gemm_sm90a_
// PLAN-SAME: params = [{box = [128, 128], buffer = [[COPY]] : i64, dims = [40, 64], dtype = "uint8", kind = "tensor_map", strides = [48]
func.func @padded(%x: tensor<64x40xf32>, %w: tensor<72x40xf32>) -> (tensor<2560xf8E4M3FN>, tensor<1x1xf32>, tensor<64x72xf32>) {
  %q, %s = fp8.dynamic_quantize %x by <tensor> rule <ratio> : tensor<64x40xf32> -> tensor<64x40xf8E4M3FN>, tensor<1x1xf32>
  %qw, %sw = fp8.dynamic_quantize %w by <tensor> rule <ratio> : tensor<72x40xf32> -> tensor<72x40xf8E4M3FN>, tensor<1x1xf32>
  %p = fp8.scaled_matmul %q, %qw scales(%s, %sw) by(<tensor>, <tensor>) transpose_rhs : tensor<64x40xf8E4M3FN>, tensor<72x40xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<64x72xf32>
  %c = tensor.collapse_shape %q [[0, 1]] : tensor<64x40xf8E4M3FN> into tensor<2560xf8E4M3FN>
  return %c, %s, %p : tensor<2560xf8E4M3FN>, tensor<1x1xf32>, tensor<64x72xf32>
}

// A full reversal of the dimensions: the input is contiguous along the
// output's outermost one.
// PLAN-LABEL: reverse = {buffers
// PLAN-SAME: grid = [8, 1, 1], kernel = "fp8_layout_transpose_b4_r3_d0"
func.func @reverse(%x: tensor<4x8x16xf32>) -> tensor<16x8x4xf32> {
  %e = tensor.empty() : tensor<16x8x4xf32>
  %t = linalg.transpose ins(%x : tensor<4x8x16xf32>) outs(%e : tensor<16x8x4xf32>) permutation = [2, 1, 0]
  return %t : tensor<16x8x4xf32>
}

// A head taken out of [S, D] and put back into a fresh [S, D]: the first
// insertion fills an empty tensor, the second writes into its result in
// place; no whole-buffer copy.
// PLAN-LABEL: slices = {buffers
// PLAN-SAME: kernel = "fp8_layout_copy_b2_r2_v8"
// PLAN-SAME: params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 1 : i64}]
// PLAN-NOT: kind = "copy"
// PLAN-SAME: params = [{buffer = 1 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 1 : i64}]
// PLAN-SAME: params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 3 : i64, kind = "buffer"}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 128 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 1 : i64}]
// PLAN-NOT: kind = "copy"
// PLAN-SAME: params = [{buffer = 3 : i64, kind = "buffer"}, {buffer = 2 : i64, kind = "buffer"}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 32 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 64 : i64}, {kind = "i32", value = 1 : i64}]
// PLAN-SAME: shared_bytes = 0 : i64}], workspace_bytes = {{[0-9]+}} : i64}
func.func @slices(%x: tensor<64x128xbf16>) -> tensor<64x64xbf16> {
  %h1 = tensor.extract_slice %x[0, 32] [64, 32] [1, 1] : tensor<64x128xbf16> to tensor<64x32xbf16>
  %e = tensor.empty() : tensor<64x64xbf16>
  %a = tensor.insert_slice %h1 into %e[0, 0] [64, 32] [1, 1] : tensor<64x32xbf16> into tensor<64x64xbf16>
  %h0 = tensor.extract_slice %x[0, 0] [64, 32] [1, 1] : tensor<64x128xbf16> to tensor<64x32xbf16>
  %b = tensor.insert_slice %h0 into %a[0, 32] [64, 32] [1, 1] : tensor<64x32xbf16> into tensor<64x64xbf16>
  return %b : tensor<64x64xbf16>
}

// A bf16 matrix transposed: a tile of 64 x 64 per CTA.
// PLAN-LABEL: transpose_2d = {buffers
// PLAN-SAME: grid = [8, 1, 1], kernel = "fp8_layout_transpose_b2_r2_d0"
// PLAN-SAME: params = [{buffer = 0 : i64, kind = "buffer"}, {buffer = 1 : i64, kind = "buffer"}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 0 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 1 : i64}, {kind = "i32", value = 96 : i64}, {kind = "i32", value = 256 : i64}, {kind = "i32", value = 1 : i64}]
// PLAN-SAME: shared_bytes = 8448
func.func @transpose_2d(%x: tensor<256x96xbf16>) -> tensor<96x256xbf16> {
  %e = tensor.empty() : tensor<96x256xbf16>
  %t = linalg.transpose ins(%x : tensor<256x96xbf16>) outs(%e : tensor<96x256xbf16>) permutation = [1, 0]
  return %t : tensor<96x256xbf16>
}
