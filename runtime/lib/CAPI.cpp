//===- CAPI.cpp - C API of the fp8-mlir GPU runtime -----------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Runtime.h"
#include "fp8rt/fp8rt.h"

#include <algorithm>
#include <cstring>
#include <new>

using namespace fp8rt;

struct fp8rt_program {
  std::unique_ptr<Program> program;
  /// Set by calls on const programs too (info queries, descriptions).
  mutable std::string lastError;
  mutable std::string description;
};

namespace {

/// The message of the last failed load on this thread.
thread_local std::string lastLoadError;

void copyError(const std::string &message, char *errbuf, size_t size) {
  if (!errbuf || size == 0)
    return;
  size_t n = std::min(size - 1, message.size());
  std::memcpy(errbuf, message.data(), n);
  errbuf[n] = '\0';
}

using Loader = std::unique_ptr<Program> (*)(const std::string &, std::string &);

int loadWith(Loader loader, const char *path, fp8rt_program **result,
             char *errbuf, size_t errbufSize) {
  std::string error;
  if (result)
    *result = nullptr;
  if (!path || !result) {
    error = "fp8rt_load: path and program must not be NULL";
  } else {
    // No exception crosses the C interface: a manifest or module too large
    // for memory is an error like any other.
    try {
      std::unique_ptr<Program> program = loader(path, error);
      if (program) {
        *result = new fp8rt_program{std::move(program), "", ""};
        lastLoadError.clear();
        return 0;
      }
    } catch (const std::bad_alloc &) {
      error = std::string("fp8rt_load: out of memory loading '") + path + "'";
    }
  }
  lastLoadError = error;
  copyError(error, errbuf, errbufSize);
  return -1;
}

int fillInfo(const Buffer &buffer, fp8rt_tensor_info *info) {
  std::memset(info, 0, sizeof(*info));
  info->dtype = buffer.dtype.c_str();
  info->rank = int32_t(buffer.shape.size());
  for (size_t i = 0; i < buffer.shape.size() && i < FP8RT_MAX_RANK; ++i)
    info->shape[i] = buffer.shape[i];
  info->bytes = buffer.bytes;
  return 0;
}

/// The buffer of input (output) `index`, or null with the error recorded.
const Buffer *getBuffer(const fp8rt_program *handle, int index, bool input) {
  const Manifest &manifest = handle->program->getManifest();
  const std::vector<int64_t> &ids = input ? manifest.inputs : manifest.outputs;
  if (index < 0 || size_t(index) >= ids.size()) {
    handle->lastError = std::string(input ? "input" : "output") + " index " +
                        std::to_string(index) + " is out of range (there are " +
                        std::to_string(ids.size()) + ")";
    return nullptr;
  }
  return &manifest.buffers[ids[index]];
}

int getInfo(const fp8rt_program *handle, int index, fp8rt_tensor_info *info,
            bool input) {
  if (!handle || !info)
    return -1;
  const Buffer *buffer = getBuffer(handle, index, input);
  return buffer ? fillInfo(*buffer, info) : -1;
}

} // namespace

extern "C" {

int fp8rt_load(const char *path, fp8rt_program **program, char *errbuf,
               size_t errbuf_size) {
  return loadWith(&Program::load, path, program, errbuf, errbuf_size);
}

int fp8rt_load_manifest(const char *path, fp8rt_program **program, char *errbuf,
                        size_t errbuf_size) {
  return loadWith(&Program::loadManifestOnly, path, program, errbuf,
                  errbuf_size);
}

void fp8rt_destroy(fp8rt_program *program) { delete program; }

int fp8rt_num_inputs(const fp8rt_program *program) {
  return program ? int(program->program->getNumInputs()) : -1;
}

int fp8rt_num_outputs(const fp8rt_program *program) {
  return program ? int(program->program->getNumOutputs()) : -1;
}

int fp8rt_input_info(const fp8rt_program *program, int index,
                     fp8rt_tensor_info *info) {
  return getInfo(program, index, info, /*input=*/true);
}

int fp8rt_output_info(const fp8rt_program *program, int index,
                      fp8rt_tensor_info *info) {
  return getInfo(program, index, info, /*input=*/false);
}

int fp8rt_input_role(const fp8rt_program *program, int index, int64_t *prepared,
                     int32_t *unread) {
  if (!program)
    return -1;
  const Buffer *buffer = getBuffer(program, index, /*input=*/true);
  if (!buffer)
    return -1;
  if (prepared)
    *prepared = buffer->prepared;
  if (unread)
    *unread = buffer->unread ? 1 : 0;
  return 0;
}

int fp8rt_run(fp8rt_program *program, const CUdeviceptr *inputs,
              const CUdeviceptr *outputs, CUstream stream) {
  return fp8rt_run_ex(program, inputs, outputs, stream, 0);
}

int fp8rt_run_ex(fp8rt_program *program, const CUdeviceptr *inputs,
                 const CUdeviceptr *outputs, CUstream stream, unsigned flags) {
  if (!program)
    return -1;
  RunOptions options;
  options.synchronize = (flags & FP8RT_RUN_SYNC) != 0;
  options.graph = (flags & FP8RT_RUN_GRAPH) != 0;
  std::string error;
  if (unsigned unknown = flags & ~(FP8RT_RUN_SYNC | FP8RT_RUN_GRAPH)) {
    program->lastError = program->program->getManifest().function +
                         ": run: unknown flags " + std::to_string(unknown);
    return -1;
  }
  if (!program->program->run(inputs, outputs, stream, options, error)) {
    program->lastError =
        program->program->getManifest().function + ": " + error;
    return -1;
  }
  program->lastError.clear();
  return 0;
}

int fp8rt_graph_captures(const fp8rt_program *program) {
  return program ? int(program->program->getNumGraphCaptures()) : -1;
}

int fp8rt_launch_grid(const fp8rt_program *program, size_t launch,
                      unsigned grid[3]) {
  if (!program || !grid ||
      launch >= program->program->getManifest().launches.size())
    return -1;
  std::array<uint32_t, 3> g = program->program->getLaunchGrid(launch);
  for (int i = 0; i < 3; ++i)
    grid[i] = g[i];
  return 0;
}

const char *fp8rt_last_error(const fp8rt_program *program) {
  return program ? program->lastError.c_str() : lastLoadError.c_str();
}

const char *fp8rt_function_name(const fp8rt_program *program) {
  return program ? program->program->getManifest().function.c_str() : "";
}

const char *fp8rt_prepare_function(const fp8rt_program *program) {
  return program ? program->program->getManifest().prepare.c_str() : "";
}

const char *fp8rt_chip(const fp8rt_program *program) {
  return program ? program->program->getManifest().chip.c_str() : "";
}

const char *fp8rt_module_kind(const fp8rt_program *program) {
  return program ? program->program->getModuleKind() : "none";
}

const char *fp8rt_describe(const fp8rt_program *program) {
  if (!program)
    return "";
  program->description = describeManifest(program->program->getManifest());
  return program->description.c_str();
}

int fp8rt_manifest_version(void) { return int(kManifestVersion); }

} // extern "C"
