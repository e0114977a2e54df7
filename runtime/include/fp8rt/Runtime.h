//===- Runtime.h - Running fp8-mlir launch plans on a GPU -------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A Program is one compiled function: its manifest, the loaded kernel module,
// device memory for its temporaries and constants, and the launch sequence,
// replayed on caller-provided device pointers with the CUDA driver API only.
//
//   std::string error;
//   std::unique_ptr<fp8rt::Program> program =
//       fp8rt::Program::load("artifacts/gemm.json", error);
//   if (!program) { report(error); ... }
//   CUdeviceptr inputs[] = {a, b, scaleA, scaleB}, outputs[] = {c};
//   if (!program->run(inputs, outputs, stream, {}, error)) report(error);
//
// Loading uses the CUDA context current on the calling thread, or retains
// device 0's primary context (the one the CUDA runtime and PyTorch use) and
// makes it current when there is none. Runs are asynchronous on the given
// stream. A Program is not safe for concurrent runs: its temporaries are
// shared, so runs must be ordered (one stream, or synchronized).
//
// Every failure is reported as a message naming the CUDA call, the kernel
// and the driver's error name and description; nothing aborts.
//
//===----------------------------------------------------------------------===//

#ifndef FP8RT_RUNTIME_H
#define FP8RT_RUNTIME_H

#include "fp8rt/Manifest.h"

#include <cuda.h>

#include <memory>
#include <string>

namespace fp8rt {

/// "CUDA_ERROR_INVALID_VALUE (invalid argument)" for a driver result; works
/// with the stub driver, whose own error strings are unavailable.
std::string describeCudaError(CUresult result);

/// The alignment, in bytes, of every argument and result pointer of
/// Program::run: kernels read and write them in vectors of up to 16 bytes
/// (and tensor maps need 16).
inline constexpr uint64_t kArgumentAlignment = 16;

struct RunOptions {
  /// Synchronize the stream after every launch, so that an asynchronous
  /// kernel fault is reported against the launch that caused it. Slow; for
  /// debugging and first runs.
  bool synchronize = false;
  /// Replay the launch sequence as one CUDA graph: the first run with a
  /// given set of input and output pointers captures the sequence (on a
  /// stream of the program's own) and instantiates it; later runs with the
  /// same pointers only launch it, one cuGraphLaunch for the whole program.
  /// A run with other pointers captures again and updates the executable
  /// graph in place (cuGraphExecUpdate), or instantiates it anew when the
  /// driver refuses the update. Cannot be combined with `synchronize`.
  bool graph = false;
};

class Program {
public:
  ~Program();
  Program(const Program &) = delete;
  Program &operator=(const Program &) = delete;

  /// Loads the manifest at `path` (a .json file, or a directory holding one)
  /// and everything it needs on the current (or primary) context: the cubin
  /// when it loads on this device, else the PTX (JIT-compiled by the
  /// driver); kernel attributes; temporaries; constants. Returns null and
  /// sets `error` on failure.
  static std::unique_ptr<Program> load(const std::string &path,
                                       std::string &error);

  /// Loads and checks the manifest only, without touching CUDA: for
  /// inspection on machines without a GPU. run() on such a program fails.
  static std::unique_ptr<Program> loadManifestOnly(const std::string &path,
                                                   std::string &error);

  const Manifest &getManifest() const { return manifest; }
  size_t getNumInputs() const { return manifest.inputs.size(); }
  size_t getNumOutputs() const { return manifest.outputs.size(); }
  const Buffer &getInput(size_t i) const { return manifest.getInput(i); }
  const Buffer &getOutput(size_t i) const { return manifest.getOutput(i); }
  /// "cubin", "ptx", or "none" (manifest only).
  const char *getModuleKind() const;
  /// The grid launch `launch` (an index into the manifest's launches) runs
  /// with: the manifest's, except for a persistent launch in clusters whose
  /// clusters the device cannot all hold at once, which runs as many whole
  /// clusters as it holds (cuOccupancyMaxActiveClusters); its kernel loops
  /// over its work with the stride of its grid.
  std::array<uint32_t, 3> getLaunchGrid(size_t launch) const;
  /// How many times runs with `RunOptions::graph` captured the launch
  /// sequence: once, plus once per change of input or output pointers.
  unsigned getNumGraphCaptures() const;

  /// Runs the launch sequence on `stream` with the device pointers of the
  /// function's arguments (`inputs`, getNumInputs() of them) and results
  /// (`outputs`), each kArgumentAlignment-byte aligned (as cuMemAlloc's and
  /// torch's allocations are; a view at an offset may not be).
  /// Returns false and sets `error` on failure.
  ///
  /// To put the program into a CUDA graph of the caller's own, run it
  /// without `options.graph` on the stream being captured.
  bool run(const CUdeviceptr *inputs, const CUdeviceptr *outputs,
           CUstream stream, const RunOptions &options, std::string &error);

private:
  Program() = default;
  struct Impl;
  bool initialize(std::string &error);

  Manifest manifest;
  std::unique_ptr<Impl> impl;
};

} // namespace fp8rt

#endif // FP8RT_RUNTIME_H
