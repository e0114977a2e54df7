/*===- fp8.c - Test of the fp8-mlir C API ---------------------------------===*\
|*                                                                            *|
|* Part of fp8-mlir.                                                          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/* RUN: rm -rf %t && fp8-capi-test %t 2>&1 | FileCheck %s
 * RUN: ls %t | FileCheck %s --check-prefix=ARTIFACTS
 */

/* Builds a bf16 GEMM through the C API as another compiler would, with the
 * fp8 attributes made and read through ours; runs fp8-autocast and the CPU
 * pipeline on it; compiles it for Hopper into the directory argv[1]. */

#include "fp8-c/Dialect/FP8.h"
#include "fp8-c/Compiler.h"
#include "fp8-c/Passes.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/Dialect/Linalg.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

/* Prints "<severity> at <location>: <message>" per diagnostic and counts
 * them. */
static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  static const char *const kSeverity[] = {"error", "warning", "note", "remark"};
  ++*(int *)userData;
  printf("%s at ", kSeverity[mlirDiagnosticGetSeverity(diagnostic)]);
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), printToStdout, NULL);
  printf(": ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

static MlirType tensorType(int64_t rows, int64_t cols, MlirType element) {
  int64_t shape[2] = {rows, cols};
  return mlirRankedTensorTypeGet(2, shape, element, mlirAttributeGetNull());
}

static MlirNamedAttribute named(MlirContext ctx, const char *name,
                                MlirAttribute value) {
  return mlirNamedAttributeGet(mlirIdentifierGet(ctx, str(name)), value);
}

static MlirOperation append(MlirBlock block, MlirOperationState *state) {
  MlirOperation op = mlirOperationCreate(state);
  mlirBlockAppendOwnedOperation(block, op);
  return op;
}

/* A linalg named op on tensors (`numOperands` operands, the last one the
 * init) with its region filled in, appended to `block`. */
static MlirValue appendNamedOp(MlirBlock block, const char *name,
                               MlirLocation loc, intptr_t numOperands,
                               MlirValue *operands, MlirType result) {
  MlirContext ctx = mlirLocationGetContext(loc);
  int32_t sizes[2] = {(int32_t)numOperands - 1, 1};
  MlirNamedAttribute segments =
      named(ctx, "operandSegmentSizes", mlirDenseI32ArrayGet(ctx, 2, sizes));
  MlirRegion region = mlirRegionCreate();
  MlirOperationState state = mlirOperationStateGet(str(name), loc);
  mlirOperationStateAddOperands(&state, numOperands, operands);
  mlirOperationStateAddAttributes(&state, 1, &segments);
  mlirOperationStateAddResults(&state, 1, &result);
  mlirOperationStateAddOwnedRegions(&state, 1, &region);
  MlirOperation op = append(block, &state);
  mlirLinalgFillBuiltinNamedOpRegion(op);
  return mlirOperationGetResult(op, 0);
}

/* func.func @matmul(%a: tensor<128x256xbf16>, %b: tensor<256x64xbf16>)
 *     -> tensor<128x64xf32>: a zero-filled linalg.matmul. */
static MlirModule buildMatmul(MlirContext ctx) {
  MlirLocation loc = mlirLocationFileLineColGet(ctx, str("matmul.py"), 3, 7);
  MlirModule module = mlirModuleCreateEmpty(loc);
  MlirType bf16 = mlirBF16TypeGet(ctx), f32 = mlirF32TypeGet(ctx);
  MlirType a = tensorType(128, 256, bf16), b = tensorType(256, 64, bf16);
  MlirType c = tensorType(128, 64, f32);

  MlirType inputs[2] = {a, b};
  MlirType fnType = mlirFunctionTypeGet(ctx, 2, inputs, 1, &c);
  MlirLocation argLocs[2] = {loc, loc};
  MlirBlock body = mlirBlockCreate(2, inputs, argLocs);
  MlirRegion region = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(region, body);
  MlirNamedAttribute fnAttrs[2] = {
      named(ctx, "sym_name", mlirStringAttrGet(ctx, str("matmul"))),
      named(ctx, "function_type", mlirTypeAttrGet(fnType))};
  MlirOperationState fn = mlirOperationStateGet(str("func.func"), loc);
  mlirOperationStateAddAttributes(&fn, 2, fnAttrs);
  mlirOperationStateAddOwnedRegions(&fn, 1, &region);
  mlirBlockAppendOwnedOperation(mlirModuleGetBody(module),
                                mlirOperationCreate(&fn));

  MlirOperationState zero = mlirOperationStateGet(str("arith.constant"), loc);
  MlirNamedAttribute value =
      named(ctx, "value", mlirFloatAttrDoubleGet(ctx, f32, 0.0));
  mlirOperationStateAddAttributes(&zero, 1, &value);
  mlirOperationStateAddResults(&zero, 1, &f32);
  MlirValue zeroValue = mlirOperationGetResult(append(body, &zero), 0);

  MlirOperationState empty = mlirOperationStateGet(str("tensor.empty"), loc);
  mlirOperationStateAddResults(&empty, 1, &c);
  MlirValue init = mlirOperationGetResult(append(body, &empty), 0);

  MlirValue fillOperands[2] = {zeroValue, init};
  MlirValue filled =
      appendNamedOp(body, "linalg.fill", loc, 2, fillOperands, c);
  MlirValue matmulOperands[3] = {mlirBlockGetArgument(body, 0),
                                 mlirBlockGetArgument(body, 1), filled};
  MlirValue result =
      appendNamedOp(body, "linalg.matmul", loc, 3, matmulOperands, c);

  MlirOperationState ret = mlirOperationStateGet(str("func.return"), loc);
  mlirOperationStateAddOperands(&ret, 1, &result);
  append(body, &ret);
  return module;
}

static void printAttr(const char *what, MlirAttribute attr) {
  printf("%s: ", what);
  mlirAttributePrint(attr, printToStdout, NULL);
  printf("\n");
}

// main prints the dialect's namespace first.
// CHECK: dialect fp8

static void testAttributes(MlirContext ctx) {
  // CHECK-LABEL: attributes
  printf("attributes\n");
  int64_t block[2] = {1, 32};
  MlirAttribute mx = fp8GranularityAttrGet(ctx, 2, block);
  int64_t shape[2] = {128, 100}, scaleShape[2];
  fp8GranularityAttrGetScaleShape(mx, 2, shape, scaleShape);
  printAttr("granularity", mx);
  // CHECK: granularity: #fp8.granularity<1x32>
  printf(
      "isa %d tensor %d dims %ld [%ld, %ld] scales of [128, 100]: [%ld, %ld]\n",
      fp8AttributeIsAGranularity(mx), fp8GranularityAttrIsTensor(mx),
      (long)fp8GranularityAttrGetNumDims(mx),
      (long)fp8GranularityAttrGetDim(mx, 0),
      (long)fp8GranularityAttrGetDim(mx, 1), (long)scaleShape[0],
      (long)scaleShape[1]);
  // CHECK: isa 1 tensor 0 dims 2 [1, 32] scales of [128, 100]: [128, 4]
  int64_t rowwise[2] = {1, FP8_GRANULARITY_FULL};
  printAttr("rowwise", fp8GranularityAttrGet(ctx, 2, rowwise));
  // CHECK: rowwise: #fp8.granularity<1x*>
  MlirAttribute tensor = fp8GranularityAttrGet(ctx, 0, NULL);
  printAttr("tensor", tensor);
  printf("is tensor %d\n", fp8GranularityAttrIsTensor(tensor));
  // CHECK: tensor: #fp8.granularity<tensor>
  // CHECK: is tensor 1

  MlirAttribute format = fp8FormatAttrGet(ctx, Fp8FormatE5M2);
  printAttr("format", format);
  printf("value %d element ", fp8FormatAttrGetValue(format));
  mlirTypePrint(fp8FormatGetElementType(ctx, Fp8FormatE2M1), printToStdout,
                NULL);
  printf("\n");
  // CHECK: format: #fp8.format<e5m2>
  // CHECK: value 1 element f4E2M1FN

  MlirAttribute rule = fp8ScaleRuleAttrGet(ctx, Fp8ScaleRulePow2, 1, 1e-12f);
  printAttr("rule", rule);
  printf("kind %d margin %d eps %g\n", fp8ScaleRuleAttrGetKind(rule),
         fp8ScaleRuleAttrGetMargin(rule), fp8ScaleRuleAttrGetEps(rule));
  // CHECK: rule: #fp8.rule<pow2, margin = 1, eps = 1.0e-12>
  // CHECK: kind 1 margin 1 eps 1e-12

  MlirAttribute recipe =
      fp8RecipeAttrGetWithKnobs(ctx, Fp8RecipeTensorDelayed, 1, 16,
                                Fp8AmaxAlgoMostRecent, Fp8ZeroAmaxSkip, 4);
  printAttr("recipe", recipe);
  printf("kind %d margin %d history %ld algo %d zero %d promote %ld\n",
         fp8RecipeAttrGetKind(recipe), fp8RecipeAttrGetMargin(recipe),
         (long)fp8RecipeAttrGetHistory(recipe), fp8RecipeAttrGetAlgo(recipe),
         fp8RecipeAttrGetZeroAmax(recipe),
         (long)fp8RecipeAttrGetPromote(recipe));
  // CHECK: recipe: #fp8.recipe<tensor_delayed, margin = 1, history = 16, algo = most_recent, zero_amax = skip>
  // CHECK: kind 0 margin 1 history 16 algo 1 zero 1 promote 4
  printAttr("default", fp8RecipeAttrGet(ctx, Fp8RecipeMXFP8));
  // CHECK: default: #fp8.recipe<mxfp8>
  printf("isa %d %d %d %d\n", fp8AttributeIsARecipe(recipe),
         fp8AttributeIsARecipe(rule), fp8AttributeIsAScaleRule(rule),
         fp8AttributeIsAFormat(format));
  // CHECK: isa 1 0 1 1
}

static void testInvalidAttributes(MlirContext ctx) {
  // CHECK-LABEL: invalid attributes
  printf("invalid attributes\n");
  int count = 0;
  MlirDiagnosticHandlerID id =
      mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, &count, NULL);
  int64_t zero[2] = {1, 0};
  MlirAttribute bad = fp8GranularityAttrGet(ctx, 2, zero);
  printf("null %d\n", mlirAttributeIsNull(bad));
  // CHECK-NEXT: error at loc(unknown): block extent
  // CHECK-NEXT: null 1
  bad = fp8ScaleRuleAttrGet(ctx, Fp8ScaleRuleE8M0RCeil, 2, 0.0f);
  printf("null %d, %d diagnostics\n", mlirAttributeIsNull(bad), count);
  // CHECK-NEXT: error at loc(unknown): {{.*}}margin
  // CHECK-NEXT: null 1, 2 diagnostics
  mlirContextDetachDiagnosticHandler(ctx, id);
}

/* Prints the top-level operations of `module`: name and symbol. */
static void printSymbols(MlirModule module) {
  MlirOperation op = mlirBlockGetFirstOperation(mlirModuleGetBody(module));
  for (; !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
    MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
    MlirAttribute symbol = mlirOperationGetAttributeByName(op, str("sym_name"));
    MlirStringRef sym =
        mlirAttributeIsNull(symbol) ? str("") : mlirStringAttrGetValue(symbol);
    printf("%.*s @%.*s\n", (int)name.length, name.data, (int)sym.length,
           sym.data);
  }
}

static int runPipeline(MlirModule module, const char *pipeline) {
  int count = 0;
  MlirLogicalResult result =
      fp8RunPassPipeline(module, str(pipeline), printDiagnostic, &count);
  printf("%s: %s, %d diagnostics\n", pipeline,
         mlirLogicalResultIsSuccess(result) ? "success" : "failure", count);
  return mlirLogicalResultIsSuccess(result);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: fp8-capi-test ARTIFACTS_DIR\n");
    return 2;
  }
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  fp8RegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  fp8RegisterAllPasses();
  // Registering twice does nothing.
  fp8RegisterPasses();
  fp8RegisterPipelines();

  MlirDialectHandle handle = mlirGetDialectHandle__fp8__();
  MlirStringRef ns = mlirDialectHandleGetNamespace(handle);
  printf("dialect %.*s\n", (int)ns.length, ns.data);
  testAttributes(ctx);
  testInvalidAttributes(ctx);

  // CHECK-LABEL: built
  // CHECK: func.func @matmul(%arg0: tensor<128x256xbf16>, %arg1: tensor<256x64xbf16>) -> tensor<128x64xf32>
  // CHECK: linalg.matmul ins(%arg0, %arg1 : tensor<128x256xbf16>, tensor<256x64xbf16>)
  MlirModule module = buildMatmul(ctx);
  printf("built\n");
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  if (!mlirOperationVerify(moduleOp))
    return 1;
  mlirOperationPrint(moduleOp, printToStdout, NULL);

  // CHECK-LABEL: autocast
  // CHECK-NEXT: fp8-autocast{recipe=mxfp8}: success, 0 diagnostics
  // CHECK: fp8.dynamic_quantize %arg0 by <1x32> rule <e8m0_rceil>
  // CHECK: fp8.scaled_matmul {{.*}} by(<1x32>, <32x1>) {recipe = #fp8.recipe<mxfp8>, role = #fp8.gemm_role<fprop>}
  // CHECK-SAME: -> tensor<128x64xf32>
  printf("autocast\n");
  MlirModule cpu = mlirModuleFromOperation(mlirOperationClone(moduleOp));
  if (!runPipeline(cpu, "fp8-autocast{recipe=mxfp8}"))
    return 1;
  mlirOperationPrint(mlirModuleGetOperation(cpu), printToStdout, NULL);

  // CHECK-LABEL: cpu pipeline
  // CHECK-NEXT: builtin.module(fp8-cpu-pipeline): success, 0 diagnostics
  // CHECK-DAG: llvm.func @matmul
  // CHECK-DAG: llvm.func @_mlir_ciface_matmul
  // CHECK-NOT: fp8.
  // CHECK-LABEL: errors
  printf("cpu pipeline\n");
  if (!runPipeline(cpu, "builtin.module(fp8-cpu-pipeline)"))
    return 1;
  printSymbols(cpu);
  mlirModuleDestroy(cpu);

  // Errors come back as diagnostics, with the failure.
  // CHECK-NEXT: error at loc("matmul.py":3:7): fp8-autocast: unknown recipe 'fp16'; valid recipes are {{.*}}
  // CHECK-NEXT: fp8-autocast{recipe=fp16}: failure, 1 diagnostics
  // CHECK-NEXT: error at loc(unknown): invalid pass pipeline 'no-such-pass': 'no-such-pass' does not refer to a registered pass or pass pipeline
  // CHECK-NEXT: no-such-pass: failure, 1 diagnostics
  printf("errors\n");
  runPipeline(module, "fp8-autocast{recipe=fp16}");
  runPipeline(module, "no-such-pass");
  int count = 0;
  MlirLogicalResult compiled = fp8CompileForChip(
      module, str("sm_89"), str(argv[1]), str("none"), printDiagnostic, &count);
  printf("sm_89: %s\n",
         mlirLogicalResultIsSuccess(compiled) ? "success" : "failure");
  // CHECK-NEXT: error at loc(unknown): {{.*}}sm_89
  // CHECK-NEXT: sm_89: failure
  compiled = fp8CompileForChip(module, str("sm_90a"), str(""), str("none"),
                               printDiagnostic, &count);
  printf("no directory: %s\n",
         mlirLogicalResultIsSuccess(compiled) ? "success" : "failure");
  // CHECK-NEXT: error at loc(unknown): compiling for a chip needs a directory for the artifacts
  // CHECK-NEXT: no directory: failure

  // CHECK-LABEL: hopper
  // CHECK-NEXT: fp8-autocast{recipe=tensor-current}: success, 0 diagnostics
  // CHECK-NEXT: sm_90a: success
  // CHECK-NEXT: gpu.binary @fp8_kernels
  printf("hopper\n");
  count = 0;
  if (!runPipeline(module, "fp8-autocast{recipe=tensor-current}"))
    return 1;
  compiled = fp8CompileForChip(module, str("sm_90a"), str(argv[1]), str("none"),
                               printDiagnostic, &count);
  printf("sm_90a: %s\n",
         mlirLogicalResultIsSuccess(compiled) ? "success" : "failure");
  printSymbols(module);

  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}

// ARTIFACTS: .ptx
// ARTIFACTS: matmul.json
