// A persistent GEMM's grid holds at least one cluster: with multicast
// (clusters of two CTAs) and num-sms=1 it was 0 CTAs, which fp8-run --check
// refused. FP8 and high-precision GEMMs alike.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a num-sms=1 sm90-multicast=1 artifacts=%t ptxas=none" -o /dev/null
// RUN: FileCheck %s --input-file=%t/plain.json
// RUN: FileCheck %s --check-prefix=HP --input-file=%t/hp.json
// RUN: fp8-run --check %t/plain.json
// RUN: fp8-run --check %t/hp.json

// CHECK: "grid": [
// CHECK-NEXT: 2,
// CHECK: "kernel": "fp8_gemm_sm90a_{{.*}}_tma_mc_
// HP: "grid": [
// HP-NEXT: 2,
// HP: "kernel": "gemm_sm90a_{{.*}}_tma_mc_

func.func @plain(%a: tensor<256x512xf8E4M3FN>, %b: tensor<384x512xf8E4M3FN>, %sa: tensor<1x1xf32>, %sb: tensor<1x1xf32>) -> tensor<256x384xbf16> {
  %c = fp8.scaled_matmul %a, %b scales(%sa, %sb) by(<tensor>, <tensor>) transpose_rhs : tensor<256x512xf8E4M3FN>, tensor<384x512xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<256x384xbf16>
  return %c : tensor<256x384xbf16>
}

func.func @hp(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  %c = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %b : tensor<256x256xbf16>, tensor<256x256xbf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %c : tensor<256x256xf32>
}
