// Debian's own mlir-opt loads the fp8 dialect from our plugin.
// RUN: %host_env mlir-opt --load-dialect-plugin=%fp8_plugin --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: %host_env mlir-opt --load-dialect-plugin=%fp8_plugin %s | FileCheck %s
// RUN: not %host_env mlir-opt %s 2>&1 | FileCheck %s --check-prefix=NOPLUGIN

// DIALECTS: Available Dialects:
// DIALECTS-SAME: fp8

// CHECK-LABEL: func @quantize
// CHECK: fp8.quantize %{{.*}}, %{{.*}} by <1x32>
// NOPLUGIN: error: Dialect `fp8' not found for custom op 'fp8.quantize'
func.func @quantize(%x: tensor<4x64xbf16>, %e: tensor<4x2xf8E8M0FNU>) -> tensor<4x64xf8E4M3FN> {
  %q = fp8.quantize %x, %e by <1x32> : tensor<4x64xbf16>, tensor<4x2xf8E8M0FNU> -> tensor<4x64xf8E4M3FN>
  return %q : tensor<4x64xf8E4M3FN>
}
