// Debian's mlir-opt runs our passes from the plugin. Passes registered by a
// plugin are loaded while the command line is parsed, so they are named in
// --pass-pipeline rather than as flags of their own.
// RUN: %host_env mlir-opt --load-pass-plugin=%fp8_plugin --load-dialect-plugin=%fp8_plugin %s \
// RUN:   --pass-pipeline="builtin.module(func.func(fp8-fuse-dynamic-quantize))" | FileCheck %s

// CHECK-LABEL: func @fuse
// CHECK: fp8.dynamic_quantize %{{.*}} by <1x32> rule <e8m0_rceil>
// CHECK-NOT: fp8.quantize
func.func @fuse(%x: tensor<4x64xbf16>) -> tensor<4x64xf8E4M3FN> {
  %a = fp8.amax %x by <1x32> : tensor<4x64xbf16> -> tensor<4x2xf32>
  %e = fp8.compute_scale %a rule <e8m0_rceil> for <e4m3> : tensor<4x2xf32> -> tensor<4x2xf8E8M0FNU>
  %q = fp8.quantize %x, %e by <1x32> : tensor<4x64xbf16>, tensor<4x2xf8E8M0FNU> -> tensor<4x64xf8E4M3FN>
  return %q : tensor<4x64xf8E4M3FN>
}
