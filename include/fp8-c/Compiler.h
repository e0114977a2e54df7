/*===- fp8-c/Compiler.h - Running fp8-mlir on a module ------------*- C -*-===*\
|*                                                                            *|
|* Part of fp8-mlir.                                                          *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* What another compiler needs to drive fp8-mlir through C: a registry with   *|
|* every dialect and extension our pipelines touch, one call that runs a      *|
|* textual pass pipeline on a module, and one that compiles a module for a    *|
|* chip into GPU artifacts (PTX, cubin, launch manifests for libfp8rt).       *|
|*                                                                            *|
|* Both calls hand every diagnostic they cause (errors, warnings, remarks,    *|
|* with their notes attached) to `handler` first, in order, as a handler      *|
|* attached with mlirContextAttachDiagnosticHandler would see them: one that  *|
|* returns success consumes the diagnostic. A null handler leaves them to the *|
|* context's handlers. When they fail, at least one error has been reported.  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FP8_C_COMPILER_H
#define FP8_C_COMPILER_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Inserts into `registry` the fp8 dialect and everything fp8-opt offers:
/// every upstream dialect and extension (bufferization and inlining
/// interfaces included), the LLVM IR translations and the NVVM target.
/// Append it to a context before parsing fp8 IR or running our pipelines.
MLIR_CAPI_EXPORTED void fp8RegisterAllDialects(MlirDialectRegistry registry);

/// Registers every upstream pass and every fp8 pass and pipeline, as
/// fp8-opt does. Registers once; calling again does nothing.
MLIR_CAPI_EXPORTED void fp8RegisterAllPasses(void);

/// Parses `source` as a module (top-level operations without a
/// `builtin.module` get one) whose locations name `sourceName`, so that
/// diagnostics point into the client's file. Text that the upstream parser
/// would crash on, or would materialize more than 2^24 elements of one type
/// for (tensor.from_elements and the like), is rejected with an error at
/// its line and column first, as fp8-opt does. Errors go to the context's
/// diagnostic handlers; returns a null module on failure.
MLIR_CAPI_EXPORTED MlirModule fp8ModuleCreateParse(MlirContext ctx,
                                                   MlirStringRef source,
                                                   MlirStringRef sourceName);

/// Parses `attribute` (mlirAttributeParseGet) after screening it as
/// fp8ModuleCreateParse screens a module: an error diagnostic and a null
/// attribute where the upstream parser would crash (a dense array of
/// `index`).
MLIR_CAPI_EXPORTED MlirAttribute fp8AttributeParseGet(MlirContext ctx,
                                                      MlirStringRef attribute);

/// Parses `pipeline` and runs it on `module`. `pipeline` is a textual pass
/// pipeline, either anchored ("builtin.module(fp8-autocast{recipe=mxfp8},
/// fp8-cpu-pipeline)") or a bare list of passes on the module
/// ("fp8-autocast{recipe=mxfp8},fp8-cpu-pipeline"). Passes must be
/// registered (fp8RegisterAllPasses). A malformed pipeline is reported as
/// an error diagnostic at an unknown location. The module is verified after
/// each pass.
MLIR_CAPI_EXPORTED MlirLogicalResult
fp8RunPassPipeline(MlirModule module, MlirStringRef pipeline,
                   MlirDiagnosticHandler handler, void *userData);

/// Compiles `module`, an fp8 graph (after fp8-autocast), for `chip`
/// ("sm_90a" or "sm_100a") with fp8-gpu-pipeline, and writes each kernel's
/// PTX (and cubin, when `ptxas` finds a ptxas) and one JSON launch manifest
/// per function into the directory `artifactsDir`, created if missing.
/// `ptxas` is the ptxas to assemble cubins with: empty or "auto" finds one,
/// "none" writes PTX only. The module holds the kernels in gpu.binary ops
/// afterwards.
MLIR_CAPI_EXPORTED MlirLogicalResult fp8CompileForChip(
    MlirModule module, MlirStringRef chip, MlirStringRef artifactsDir,
    MlirStringRef ptxas, MlirDiagnosticHandler handler, void *userData);

/// fp8CompileForChip with more of fp8-gpu-pipeline's options, in its
/// textual form ("prepare-weights=1 num-sms=148"); `chip`, `artifactsDir`
/// and `ptxas` take precedence over the same options in the text. Unknown or
/// malformed options are an error diagnostic.
MLIR_CAPI_EXPORTED MlirLogicalResult fp8CompileForChipWithOptions(
    MlirModule module, MlirStringRef chip, MlirStringRef artifactsDir,
    MlirStringRef ptxas, MlirStringRef pipelineOptions,
    MlirDiagnosticHandler handler, void *userData);

/// The directory of the libMLIR.so this library runs with, which also holds
/// MLIR's runner utility libraries (libmlir_c_runner_utils.so) that code
/// from fp8-cpu-pipeline may call when run by an ExecutionEngine.
MLIR_CAPI_EXPORTED MlirStringRef fp8GetMLIRLibraryDir(void);

#ifdef __cplusplus
}
#endif

#endif // FP8_C_COMPILER_H
