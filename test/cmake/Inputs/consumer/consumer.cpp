// Parses fp8 IR, builds an attribute through the C++ API, runs one of our
// passes, and prints what it saw.
#include "fp8/Dialect/FP8/IR/FP8Ops.h"
#include "fp8/Dialect/FP8/IR/FormatInfo.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

static const char *kSource = R"mlir(
func.func @f(%x: tensor<8x64xbf16>) -> tensor<8x64xf8E4M3FN> {
  %a = fp8.amax %x by <1x32> : tensor<8x64xbf16> -> tensor<8x2xf32>
  %e = fp8.compute_scale %a rule <e8m0_rceil> for <e4m3> : tensor<8x2xf32> -> tensor<8x2xf8E8M0FNU>
  %q = fp8.quantize %x, %e by <1x32> : tensor<8x64xbf16>, tensor<8x2xf8E8M0FNU> -> tensor<8x64xf8E4M3FN>
  return %q : tensor<8x64xf8E4M3FN>
}
)mlir";

int main() {
  mlir::MLIRContext ctx;
  ctx.loadDialect<mlir::fp8::FP8Dialect, mlir::func::FuncDialect>();
  auto block = mlir::fp8::GranularityAttr::get(&ctx, {1, 128});
  auto scaleShape = block.getScaleShape({256, 300});
  llvm::outs() << "granularity " << block << " scale shape "
               << mlir::fp8::formatShape(scaleShape) << "\n";

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kSource, &ctx);
  if (!module)
    return 1;
  mlir::PassManager pm(&ctx);
  pm.addNestedPass<mlir::func::FuncOp>(
      mlir::fp8::createFP8FuseDynamicQuantize());
  if (mlir::failed(pm.run(*module)))
    return 1;
  int fused = 0;
  module->walk([&](mlir::fp8::DynamicQuantizeOp) { ++fused; });
  llvm::outs() << "fused " << fused << " dynamic_quantize\n";
  return 0;
}
