/*===- fp8-c/Passes.h - Registration of fp8 passes and pipelines --*- C -*-===*\
|*                                                                            *|
|* Part of fp8-mlir.                                                          *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* Adds fp8-mlir's passes and pipelines to MLIR's global pass registry, so    *|
|* that textual pipelines (mlirParsePassPipeline, fp8RunPassPipeline) name    *|
|* them. Each call registers once; calling again does nothing.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FP8_C_PASSES_H
#define FP8_C_PASSES_H

#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The graph passes (fp8-autocast, fp8-unit-scale, fusion, layout legality,
/// ...) and the conversions (convert-fp8-to-linalg, convert-fp8-to-gpu,
/// fp8-expand-float-casts, ...).
MLIR_CAPI_EXPORTED void fp8RegisterPasses(void);

/// fp8-cpu-pipeline, fp8-gpu-graph-pipeline and fp8-gpu-pipeline.
MLIR_CAPI_EXPORTED void fp8RegisterPipelines(void);

#ifdef __cplusplus
}
#endif

#endif // FP8_C_PASSES_H
