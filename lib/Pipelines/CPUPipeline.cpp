//===- CPUPipeline.cpp - fp8-cpu-pipeline ---------------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Pipelines/Pipelines.h"

#include "fp8/Conversion/Passes.h"
#include "fp8/Dialect/FP8/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void fp8::buildFP8CPUPipeline(OpPassManager &pm,
                              const CPUPipelineOptions &options) {
  // Reference semantics of the fp8 ops, then every elementwise op on tensors
  // as linalg so that scalar conversions remain.
  pm.addPass(fp8::createFP8DecomposeAggregates());
  pm.addPass(fp8::createConvertFP8ToLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  // The passes below rewrite scalar ops wherever they are, named-op bodies
  // included, but a named op's body is fixed by its name: rewritten, it no
  // longer prints as itself, and contraction verifiers reject it. Every named
  // op becomes the linalg.generic its name stands for first.
  pm.addPass(createLinalgGeneralizeNamedOpsPass());
  // Arithmetic on floats narrower than f32 happens in f32, rounded after
  // each op; then every conversion involving bf16 or a small float becomes
  // integer code, so that no target support for them is needed.
  pm.addPass(fp8::createFP8EmulateNarrowFloats());
  // erf and exp as docs/numerics.md specifies them (the GPU kernels compute
  // the same bits), not by the host's libm.
  pm.addPass(fp8::createFP8ExpandMath());
  pm.addPass(fp8::createFP8ExpandFloatCasts());
  // Small-float tensor constants (quantized weights) became integer
  // constants and a bit cast, elementwise.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));

  pm.addPass(fp8::createFP8IsolateGlobalState());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Training-step loops carry state (amax histories, scales) that each step
  // produces anew.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  if (options.deallocate)
    bufferization::buildBufferDeallocationPipeline(pm);
  // Buffer copies made for loops and deallocation.
  pm.addPass(createConvertBufferizationToMemRefPass());

  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // Nested explicitly: textual pipelines (fp8RunPassPipeline, mlir-opt's
  // --pass-pipeline) build this one without implicit nesting.
  if (options.emitCInterface)
    pm.addNestedPass<func::FuncOp>(LLVM::createLLVMRequestCWrappersPass());
  // Math functions with an LLVM lowering take it; the others call libm
  // (declared after the C wrappers were requested: libm has none).
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
