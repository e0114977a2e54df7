// The IR shown in README.md's tour verifies and round-trips.
// RUN: fp8-opt %s | fp8-opt | FileCheck %s

// CHECK: fp8.scaled_matmul {{.*}} by(<1x32>, <32x1>)
func.func @tour(%x: tensor<128x256xbf16>, %w: tensor<256x64xf8E4M3FN>, %ew: tensor<8x64xf8E8M0FNU>) -> tensor<128x64xbf16> {
  %a = fp8.amax %x by <1x32> : tensor<128x256xbf16> -> tensor<128x8xf32>
  %e = fp8.compute_scale %a rule <e8m0_rceil> for <e4m3>
      : tensor<128x8xf32> -> tensor<128x8xf8E8M0FNU>
  %q = fp8.quantize %x, %e by <1x32>
      : tensor<128x256xbf16>, tensor<128x8xf8E8M0FNU> -> tensor<128x256xf8E4M3FN>
  %c = fp8.scaled_matmul %q, %w scales(%e, %ew) by(<1x32>, <32x1>)
      : tensor<128x256xf8E4M3FN>, tensor<256x64xf8E4M3FN>,
        tensor<128x8xf8E8M0FNU>, tensor<8x64xf8E8M0FNU> -> tensor<128x64xbf16>
  return %c : tensor<128x64xbf16>
}
