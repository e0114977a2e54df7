/*===- fp8rt.h - C API of the fp8-mlir GPU runtime ----------------*- C -*-===*\
|*                                                                            *|
|* Part of fp8-mlir.                                                          *|
|*                                                                            *|
|*===----------------------------------------------------------------------===*|
|*                                                                            *|
|* A plain C interface to fp8rt::Program (fp8rt/Runtime.h), usable from C and *|
|* from Python ctypes (runtime/python/fp8rt.py). Functions returning int give *|
|* 0 on success and -1 on failure; the message is then in                    *|
|* fp8rt_last_error(program), or fp8rt_last_error(NULL) for failed loads.     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FP8RT_FP8RT_H
#define FP8RT_FP8RT_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define FP8RT_EXPORT __attribute__((visibility("default")))
#else
#define FP8RT_EXPORT
#endif

/** Highest tensor rank fp8rt_tensor_info reports. */
#define FP8RT_MAX_RANK 16

/** Synchronize after every launch and name the launch that failed. */
#define FP8RT_RUN_SYNC 1u

/** Replay the launches as one CUDA graph, captured on the first run and again
 *  whenever the input or output pointers change (fp8rt::RunOptions::graph).
 *  Cannot be combined with FP8RT_RUN_SYNC. */
#define FP8RT_RUN_GRAPH 2u

typedef struct fp8rt_program fp8rt_program;

/** An argument or result of the function: element type (f32, bf16, f16,
 *  f8e4m3, f8e5m2, f8e8m0, f4e2m1, iN), shape and size in bytes. Raw,
 *  densely stored, row-major; f4e2m1 packs two per byte, low nibble first. */
typedef struct fp8rt_tensor_info {
  const char *dtype;
  int32_t rank;
  int64_t shape[FP8RT_MAX_RANK];
  uint64_t bytes;
} fp8rt_tensor_info;

/** Loads a manifest (a .json file, or a directory holding one) and its
 *  kernels on the current CUDA context (or device 0's primary context, which
 *  it then makes current). On failure returns -1, sets *program to NULL and
 *  copies the message into errbuf (errbuf_size bytes, may be NULL/0). */
FP8RT_EXPORT int fp8rt_load(const char *path, fp8rt_program **program,
                            char *errbuf, size_t errbuf_size);

/** Like fp8rt_load, but reads and checks the manifest only, without CUDA:
 *  inspection without a GPU. fp8rt_run fails on such a program. */
FP8RT_EXPORT int fp8rt_load_manifest(const char *path, fp8rt_program **program,
                                     char *errbuf, size_t errbuf_size);

/** Frees the program's device memory and module. NULL is ignored. */
FP8RT_EXPORT void fp8rt_destroy(fp8rt_program *program);

FP8RT_EXPORT int fp8rt_num_inputs(const fp8rt_program *program);
FP8RT_EXPORT int fp8rt_num_outputs(const fp8rt_program *program);

/** Fills *info for argument (result) `index`. The dtype string lives as long
 *  as the program. */
FP8RT_EXPORT int fp8rt_input_info(const fp8rt_program *program, int index,
                                  fp8rt_tensor_info *info);
FP8RT_EXPORT int fp8rt_output_info(const fp8rt_program *program, int index,
                                   fp8rt_tensor_info *info);

/** What argument `index` is to the function's caller (fp8-prepare-weights):
 *  *prepared is the number of the result of the function's prepare function
 *  that the caller passes there, or -1 for an argument of its own; *unread
 *  is 1 when no launch reads the argument (the caller may pass a null
 *  pointer), else 0. Either pointer may be NULL. Returns 0, or -1 for a bad
 *  index (fp8rt_last_error says why). */
FP8RT_EXPORT int fp8rt_input_role(const fp8rt_program *program, int index,
                                  int64_t *prepared, int32_t *unread);

/** Runs the function asynchronously on `stream` with device pointers to its
 *  arguments and results (fp8rt_num_inputs / fp8rt_num_outputs of them),
 *  each 16-byte aligned: kernels access them in vectors of up to 16 bytes.
 *  Runs of one program must not overlap (they share temporaries). */
FP8RT_EXPORT int fp8rt_run(fp8rt_program *program, const CUdeviceptr *inputs,
                           const CUdeviceptr *outputs, CUstream stream);

/** fp8rt_run with flags (FP8RT_RUN_SYNC, FP8RT_RUN_GRAPH). */
FP8RT_EXPORT int fp8rt_run_ex(fp8rt_program *program, const CUdeviceptr *inputs,
                              const CUdeviceptr *outputs, CUstream stream,
                              unsigned flags);

/** How many times FP8RT_RUN_GRAPH runs captured the launches; -1 for NULL. */
FP8RT_EXPORT int fp8rt_graph_captures(const fp8rt_program *program);

/** The last error of `program`, or with NULL the last failed load on this
 *  thread; "" if none. Valid until the next call on the same program. */
FP8RT_EXPORT const char *fp8rt_last_error(const fp8rt_program *program);

/** The grid of launch `launch` (an index into the manifest's launches) as it
 *  runs: the manifest's, except a persistent launch in clusters whose
 *  clusters the device cannot all hold at once runs as many whole clusters
 *  as it holds. Writes grid[0..2]; returns 0, or -1 for NULL or an index
 *  past the last launch. */
FP8RT_EXPORT int fp8rt_launch_grid(const fp8rt_program *program, size_t launch,
                                   unsigned grid[3]);

/** Function name, chip (e.g. sm_90a) and loaded module kind ("cubin", "ptx",
 *  or "none" for fp8rt_load_manifest). */
FP8RT_EXPORT const char *fp8rt_function_name(const fp8rt_program *program);
FP8RT_EXPORT const char *fp8rt_chip(const fp8rt_program *program);
FP8RT_EXPORT const char *fp8rt_module_kind(const fp8rt_program *program);

/** The prepare function whose results the inputs with a prepared number are
 *  (fp8-prepare-weights: `<function>_prepare`, or the prepare group's), or
 *  "" when the function takes none. */
FP8RT_EXPORT const char *fp8rt_prepare_function(const fp8rt_program *program);

/** A multi-line summary of the manifest (buffers, launches, parameters). */
FP8RT_EXPORT const char *fp8rt_describe(const fp8rt_program *program);

/** The runtime's manifest format version (1). */
FP8RT_EXPORT int fp8rt_manifest_version(void);

#ifdef __cplusplus
}
#endif

#endif /* FP8RT_FP8RT_H */
