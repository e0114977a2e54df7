//===- Runtime.cpp - Running fp8-mlir launch plans on a GPU ---------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Runtime.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

namespace fp8rt {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

namespace {

/// Names of common driver results, for drivers (the stub) that cannot name
/// their own errors.
const char *getKnownErrorName(CUresult result) {
#define FP8RT_CASE(name)                                                       \
  case name:                                                                   \
    return #name;
  switch (result) {
    FP8RT_CASE(CUDA_SUCCESS)
    FP8RT_CASE(CUDA_ERROR_INVALID_VALUE)
    FP8RT_CASE(CUDA_ERROR_OUT_OF_MEMORY)
    FP8RT_CASE(CUDA_ERROR_NOT_INITIALIZED)
    FP8RT_CASE(CUDA_ERROR_DEINITIALIZED)
    FP8RT_CASE(CUDA_ERROR_STUB_LIBRARY)
    FP8RT_CASE(CUDA_ERROR_NO_DEVICE)
    FP8RT_CASE(CUDA_ERROR_INVALID_DEVICE)
    FP8RT_CASE(CUDA_ERROR_INVALID_IMAGE)
    FP8RT_CASE(CUDA_ERROR_INVALID_CONTEXT)
    FP8RT_CASE(CUDA_ERROR_NO_BINARY_FOR_GPU)
    FP8RT_CASE(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
    FP8RT_CASE(CUDA_ERROR_INVALID_PTX)
    FP8RT_CASE(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)
    FP8RT_CASE(CUDA_ERROR_INVALID_SOURCE)
    FP8RT_CASE(CUDA_ERROR_FILE_NOT_FOUND)
    FP8RT_CASE(CUDA_ERROR_INVALID_HANDLE)
    FP8RT_CASE(CUDA_ERROR_NOT_FOUND)
    FP8RT_CASE(CUDA_ERROR_NOT_READY)
    FP8RT_CASE(CUDA_ERROR_ILLEGAL_ADDRESS)
    FP8RT_CASE(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
    FP8RT_CASE(CUDA_ERROR_LAUNCH_TIMEOUT)
    FP8RT_CASE(CUDA_ERROR_LAUNCH_FAILED)
    FP8RT_CASE(CUDA_ERROR_ILLEGAL_INSTRUCTION)
    FP8RT_CASE(CUDA_ERROR_MISALIGNED_ADDRESS)
    FP8RT_CASE(CUDA_ERROR_INVALID_ADDRESS_SPACE)
    FP8RT_CASE(CUDA_ERROR_INVALID_PC)
    FP8RT_CASE(CUDA_ERROR_HARDWARE_STACK_ERROR)
    FP8RT_CASE(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    FP8RT_CASE(CUDA_ERROR_NOT_PERMITTED)
    FP8RT_CASE(CUDA_ERROR_NOT_SUPPORTED)
    FP8RT_CASE(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)
    FP8RT_CASE(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)
    FP8RT_CASE(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
    FP8RT_CASE(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)
    FP8RT_CASE(CUDA_ERROR_STREAM_CAPTURE_ISOLATION)
    FP8RT_CASE(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)
    FP8RT_CASE(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)
    FP8RT_CASE(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)
    FP8RT_CASE(CUDA_ERROR_UNKNOWN)
  default:
    return nullptr;
  }
#undef FP8RT_CASE
}

/// Results after which the context is unusable until the process exits.
bool isStickyError(CUresult result) {
  switch (result) {
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
    return true;
  default:
    return false;
  }
}

} // namespace

std::string describeCudaError(CUresult result) {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = getKnownErrorName(result);
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string message =
      name ? std::string(name) : "CUDA error " + std::to_string(int(result));
  if (text && *text)
    message += std::string(" (") + text + ")";
  if (result == CUDA_ERROR_STUB_LIBRARY)
    message += ": the libcuda.so loaded is the CUDA toolkit's stub; this "
               "machine has no NVIDIA driver";
  else if (isStickyError(result))
    message += "; the CUDA context is now unusable (restart the process; "
               "compute-sanitizer finds the faulting access)";
  return message;
}

namespace {

/// "call (context): CUDA_ERROR_... (text)".
bool failCuda(std::string &error, const std::string &call, CUresult result,
              const std::string &context = "") {
  error = call + (context.empty() ? "" : " (" + context + ")") + ": " +
          describeCudaError(result);
  return false;
}

/// Makes a context current for a scope and restores the previous one.
class ScopedContext {
public:
  explicit ScopedContext(CUcontext context) {
    CUcontext current = nullptr;
    if (cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != context)
      pushed = cuCtxPushCurrent(context) == CUDA_SUCCESS;
  }
  ~ScopedContext() {
    if (pushed) {
      CUcontext popped;
      cuCtxPopCurrent(&popped);
    }
  }

private:
  bool pushed = false;
};

CUtensorMapDataType getTensorMapDataType(TensorMapDType type) {
  switch (type) {
  case TensorMapDType::UInt8:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case TensorMapDType::UInt16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case TensorMapDType::UInt32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case TensorMapDType::Int32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case TensorMapDType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case TensorMapDType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case TensorMapDType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

CUtensorMapSwizzle getSwizzle(Swizzle swizzle) {
  switch (swizzle) {
  case Swizzle::None:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  case Swizzle::B32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case Swizzle::B64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case Swizzle::B128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

CUtensorMapL2promotion getL2Promotion(L2Promotion promotion) {
  switch (promotion) {
  case L2Promotion::None:
    return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  case L2Promotion::B64:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case L2Promotion::B128:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  case L2Promotion::B256:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
  return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
}

/// Bytes of a kernel parameter of each kind.
size_t getParamSize(ParamKind kind) {
  switch (kind) {
  case ParamKind::Buffer:
    return sizeof(CUdeviceptr);
  case ParamKind::I32:
    return sizeof(int32_t);
  case ParamKind::F32:
    return sizeof(float);
  case ParamKind::TensorMap:
    return sizeof(CUtensorMap);
  }
  return 0;
}

const char *getParamKindName(ParamKind kind) {
  switch (kind) {
  case ParamKind::Buffer:
    return "buffer";
  case ParamKind::I32:
    return "i32";
  case ParamKind::F32:
    return "f32";
  case ParamKind::TensorMap:
    return "tensor_map";
  }
  return "?";
}

std::string formatAddress(CUdeviceptr pointer) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%llx", (unsigned long long)pointer);
  return text;
}

std::string describeBuffer(const Buffer &buffer) {
  return "buffer " + std::to_string(buffer.id) + ", " + buffer.dtype + " " +
         formatShape(buffer.shape);
}

} // namespace

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

/// Storage of one kernel parameter; kernelParams point into it. Tensor maps
/// need 64-byte alignment.
struct alignas(64) ParamSlot {
  CUtensorMap map;
  CUdeviceptr pointer = 0;
  int32_t i32 = 0;
  float f32 = 0;
  /// The buffer address `map` was encoded for (0: not yet).
  CUdeviceptr encodedFor = 0;
};

struct KernelLaunch {
  CUfunction function = nullptr;
  /// The grid launched: the manifest's, or fewer whole clusters (see
  /// fitClusters).
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::vector<ParamSlot> slots;
  std::vector<void *> args;
};

struct Program::Impl {
  bool hasDevice = false;
  CUdevice device = 0;
  CUcontext context = nullptr;
  bool retainedPrimary = false;
  std::string deviceName;
  CUmodule module = nullptr;
  const char *moduleKind = "none";
  /// The address of device memory owned by the program (temporaries,
  /// constants and state), by buffer id; 0 for inputs and outputs.
  std::vector<CUdeviceptr> owned;
  /// What the program allocated (the workspace, constants, state, and
  /// temporaries outside the workspace), freed with it.
  std::vector<CUdeviceptr> allocations;
  /// One per launch (empty for fills).
  std::vector<KernelLaunch> kernels;
  /// Scratch: the address of every buffer in the current run.
  std::vector<CUdeviceptr> addresses;
  /// Graph replay (RunOptions::graph): the stream captures happen on, the
  /// executable graph and the buffer addresses it was captured with.
  CUstream captureStream = nullptr;
  CUgraphExec graphExec = nullptr;
  std::vector<CUdeviceptr> graphAddresses;
  unsigned graphCaptures = 0;

  ~Impl() {
    if (!hasDevice)
      return;
    {
      ScopedContext scope(context);
      // Errors are ignored here: after a sticky fault nothing can be freed,
      // and a destructor has nobody to tell.
      if (graphExec)
        cuGraphExecDestroy(graphExec);
      if (captureStream)
        cuStreamDestroy(captureStream);
      if (module)
        cuModuleUnload(module);
      for (CUdeviceptr pointer : allocations)
        cuMemFree(pointer);
    }
    if (retainedPrimary)
      cuDevicePrimaryCtxRelease(device);
  }

  // The steps of Program::initialize, in order.
  bool acquireContext(std::string &error);
  bool checkDevice(const Manifest &manifest, std::string &error);
  bool loadModule(const Manifest &manifest, std::string &error);
  bool prepareKernels(const Manifest &manifest, std::string &error);
  bool allocateBuffers(const Manifest &manifest, std::string &error);

  bool prepareKernel(const Launch &launch, const std::string &where,
                     int sharedOptIn, KernelLaunch &kernel, std::string &error);
  /// Sets `kernel.grid` of a persistent launch in clusters to the clusters
  /// the device holds at once, where that is fewer than its grid's.
  bool fitClusters(const Launch &launch, KernelLaunch &kernel,
                   const std::string &where, std::string &error);

  // Running.
  static std::string describeStep(const Manifest &manifest, size_t i);
  bool bindParams(const Manifest &manifest, size_t i, std::string &error);
  bool enqueueStep(const Manifest &manifest, size_t i, CUstream stream,
                   std::string &error);
  bool captureGraph(const Manifest &manifest, CUgraph &graph,
                    std::string &error);
  bool runGraph(const Manifest &manifest, CUstream stream, std::string &error);
};

Program::~Program() = default;

const char *Program::getModuleKind() const {
  return impl ? impl->moduleKind : "none";
}

std::unique_ptr<Program> Program::loadManifestOnly(const std::string &path,
                                                   std::string &error) {
  std::unique_ptr<Program> program(new Program());
  if (!loadManifest(path, program->manifest, error) ||
      !checkManifestFiles(program->manifest, error) ||
      !checkManifestModule(program->manifest, error))
    return nullptr;
  program->impl = std::make_unique<Impl>();
  return program;
}

std::unique_ptr<Program> Program::load(const std::string &path,
                                       std::string &error) {
  std::unique_ptr<Program> program = loadManifestOnly(path, error);
  if (!program)
    return nullptr;
  if (!program->initialize(error)) {
    error = program->manifest.path + ": " + error;
    return nullptr;
  }
  return program;
}

bool Program::initialize(std::string &error) {
  Impl &state = *impl;
  if (!state.acquireContext(error))
    return false;
  ScopedContext scope(state.context);
  return state.checkDevice(manifest, error) &&
         state.loadModule(manifest, error) &&
         state.prepareKernels(manifest, error) &&
         state.allocateBuffers(manifest, error);
}

/// The caller's current context, or device 0's primary context (retained and
/// made current).
bool Program::Impl::acquireContext(std::string &error) {
  if (CUresult r = cuInit(0))
    return failCuda(error, "cuInit", r);
  CUcontext current = nullptr;
  if (CUresult r = cuCtxGetCurrent(&current))
    return failCuda(error, "cuCtxGetCurrent", r);
  if (!current) {
    if (CUresult r = cuDeviceGet(&device, 0))
      return failCuda(error, "cuDeviceGet", r, "device 0");
    if (CUresult r = cuDevicePrimaryCtxRetain(&context, device))
      return failCuda(error, "cuDevicePrimaryCtxRetain", r, "device 0");
    retainedPrimary = true;
    hasDevice = true;
    if (CUresult r = cuCtxSetCurrent(context))
      return failCuda(error, "cuCtxSetCurrent", r);
    return true;
  }
  context = current;
  if (CUresult r = cuCtxGetDevice(&device))
    return failCuda(error, "cuCtxGetDevice", r);
  hasDevice = true;
  // When the current context is the device's primary one (the CUDA
  // runtime's, or one another program retained), hold it too, so that it
  // outlives this program whoever releases it first.
  unsigned flags = 0;
  int active = 0;
  CUcontext primary = nullptr;
  if (cuDevicePrimaryCtxGetState(device, &flags, &active) == CUDA_SUCCESS &&
      active && cuDevicePrimaryCtxRetain(&primary, device) == CUDA_SUCCESS) {
    if (primary == current)
      retainedPrimary = true;
    else
      cuDevicePrimaryCtxRelease(device);
  }
  return true;
}

/// The device must run the chip's code.
bool Program::Impl::checkDevice(const Manifest &manifest, std::string &error) {
  char name[256] = {0};
  cuDeviceGetName(name, sizeof(name) - 1, device);
  deviceName = name;
  int major = 0, minor = 0;
  if (CUresult r = cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    return failCuda(error, "cuDeviceGetAttribute", r, "compute capability");
  if (CUresult r = cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    return failCuda(error, "cuDeviceGetAttribute", r, "compute capability");
  // The reader accepts known chips only; their code is architecture-
  // specific and runs on exactly one compute capability.
  const ChipInfo &chip = *findChip(manifest.chip);
  if (major == chip.major && minor == chip.minor)
    return true;
  error = "the kernels are compiled for " + manifest.chip +
          " (compute capability " + std::to_string(chip.major) + "." +
          std::to_string(chip.minor) + " exactly), but device " +
          std::to_string(int(device)) + " (" + deviceName +
          ") has compute capability " + std::to_string(major) + "." +
          std::to_string(minor);
  return false;
}

/// The cubin if it loads on this device, else the PTX, JIT-compiled by the
/// driver; when both fail the error gives both reasons and the JIT log.
bool Program::Impl::loadModule(const Manifest &manifest, std::string &error) {
  std::string cubinProblem;
  if (!manifest.cubinFile.empty()) {
    std::string path = joinPath(manifest.directory, manifest.cubinFile);
    std::string image, readError;
    if (!readFile(path, image, readError)) {
      cubinProblem = readError;
    } else if (CUresult r = cuModuleLoadDataEx(&module, image.data(), 0,
                                               nullptr, nullptr)) {
      cubinProblem =
          "cuModuleLoadDataEx (cubin '" + path + "'): " + describeCudaError(r);
      module = nullptr;
    } else {
      moduleKind = "cubin";
      return true;
    }
  }
  std::string path = joinPath(manifest.directory, manifest.ptxFile);
  std::string ptx;
  if (!readFile(path, ptx, error))
    return false;
  ptx.push_back('\0');
  std::vector<char> log(1 << 16, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log.data(),
                    reinterpret_cast<void *>(uintptr_t(log.size() - 1))};
  if (CUresult r =
          cuModuleLoadDataEx(&module, ptx.data(), 2, options, values)) {
    module = nullptr;
    error = (cubinProblem.empty() ? "" : cubinProblem + "; then ") +
            "cuModuleLoadDataEx (PTX '" + path +
            "', JIT-compiled by the driver): " + describeCudaError(r);
    if (log[0])
      error += "\nJIT log:\n" + std::string(log.data());
    return false;
  }
  moduleKind = "ptx";
  return true;
}

/// Every kernel launch's function, attributes and parameter storage.
bool Program::Impl::prepareKernels(const Manifest &manifest,
                                   std::string &error) {
  int sharedOptIn = 0;
  cuDeviceGetAttribute(&sharedOptIn,
                       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       device);
  kernels.resize(manifest.launches.size());
  for (size_t i = 0; i < manifest.launches.size(); ++i) {
    const Launch &launch = manifest.launches[i];
    if (launch.kind != LaunchKind::Kernel)
      continue;
    std::string where =
        "kernel '" + launch.kernel + "', launch " + std::to_string(i);
    if (!prepareKernel(launch, where, sharedOptIn, kernels[i], error))
      return false;
  }
  return true;
}

namespace {

/// The loaded kernel's parameters must have the sizes of the manifest's.
/// Their number was checked against the PTX `.entry` (checkManifestModule);
/// asking the driver about an index past the last parameter is an error that
/// compute-sanitizer reports, so the driver is asked only about the
/// manifest's parameters.
bool checkParamSizes(CUfunction function, const Launch &launch,
                     const std::string &where, std::string &error) {
  for (size_t p = 0; p < launch.params.size(); ++p) {
    size_t offset = 0, size = 0;
    CUresult r = cuFuncGetParamInfo(function, p, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) {
      error = where + ": the kernel takes " + std::to_string(p) +
              " parameters, but the manifest passes " +
              std::to_string(launch.params.size());
      return false;
    }
    if (r != CUDA_SUCCESS)
      return true; // the driver cannot tell; launch and see
    size_t expected = getParamSize(launch.params[p].kind);
    if (size != expected) {
      error = where + ": parameter " + std::to_string(p) + " has " +
              std::to_string(size) + " bytes, but the manifest passes a " +
              getParamKindName(launch.params[p].kind) + " (" +
              std::to_string(expected) + " bytes)";
      return false;
    }
  }
  return true;
}

/// Points kernel.args at one slot per parameter, holding the constant ones.
void bindParamSlots(const Launch &launch, KernelLaunch &kernel) {
  kernel.slots.resize(launch.params.size());
  for (size_t p = 0; p < launch.params.size(); ++p) {
    const Param &param = launch.params[p];
    ParamSlot &slot = kernel.slots[p];
    std::memset(&slot.map, 0, sizeof(slot.map));
    slot.i32 = param.i32;
    slot.f32 = param.f32;
    switch (param.kind) {
    case ParamKind::Buffer:
      kernel.args.push_back(&slot.pointer);
      break;
    case ParamKind::I32:
      kernel.args.push_back(&slot.i32);
      break;
    case ParamKind::F32:
      kernel.args.push_back(&slot.f32);
      break;
    case ParamKind::TensorMap:
      kernel.args.push_back(&slot.map);
      break;
    }
  }
}

} // namespace

bool Program::Impl::prepareKernel(const Launch &launch,
                                  const std::string &where, int sharedOptIn,
                                  KernelLaunch &kernel, std::string &error) {
  if (CUresult r =
          cuModuleGetFunction(&kernel.function, module, launch.kernel.c_str()))
    return failCuda(error, "cuModuleGetFunction", r,
                    where + ": not in the " + std::string(moduleKind) +
                        " module");

  int staticShared = 0, maxThreads = 0, registers = 0;
  cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                     kernel.function);
  cuFuncGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                     kernel.function);
  cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, kernel.function);
  if (sharedOptIn > 0 &&
      int64_t(launch.sharedBytes) + staticShared > sharedOptIn) {
    error = where + ": needs " + std::to_string(launch.sharedBytes) +
            " bytes of dynamic and " + std::to_string(staticShared) +
            " of static shared memory, but " + deviceName + " allows " +
            std::to_string(sharedOptIn) + " per block";
    return false;
  }
  if (launch.sharedBytes > 0)
    if (CUresult r = cuFuncSetAttribute(
            kernel.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            int(launch.sharedBytes)))
      return failCuda(
          error, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r,
          where + ", " + std::to_string(launch.sharedBytes) + " bytes");
  uint64_t threads =
      uint64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  if (maxThreads > 0 && threads > uint64_t(maxThreads)) {
    error = where + ": blocks of " + std::to_string(threads) +
            " threads, but with " + std::to_string(registers) +
            " registers per thread the kernel runs at most " +
            std::to_string(maxThreads);
    return false;
  }
  if (launch.cluster[0] * launch.cluster[1] * launch.cluster[2] > 8)
    if (CUresult r = cuFuncSetAttribute(
            kernel.function,
            CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1))
      return failCuda(error,
                      "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)",
                      r, where);
  if (!checkParamSizes(kernel.function, launch, where, error))
    return false;
  kernel.grid = launch.grid;
  if (!fitClusters(launch, kernel, where, error))
    return false;
  bindParamSlots(launch, kernel);
  return true;
}

namespace {

/// The configuration of `launch` with `grid` on `stream`; a launch in
/// clusters points it at `attribute`, its cluster dimensions, which must
/// outlive it.
CUlaunchConfig getLaunchConfig(const Launch &launch,
                               const std::array<uint32_t, 3> &grid,
                               CUstream stream, CUlaunchAttribute &attribute) {
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof(config));
  config.gridDimX = grid[0];
  config.gridDimY = grid[1];
  config.gridDimZ = grid[2];
  config.blockDimX = launch.block[0];
  config.blockDimY = launch.block[1];
  config.blockDimZ = launch.block[2];
  config.sharedMemBytes = launch.sharedBytes;
  config.hStream = stream;
  std::memset(&attribute, 0, sizeof(attribute));
  if (launch.cluster[0] * launch.cluster[1] * launch.cluster[2] > 1) {
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = launch.cluster[0];
    attribute.value.clusterDim.y = launch.cluster[1];
    attribute.value.clusterDim.z = launch.cluster[2];
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  return config;
}

} // namespace

bool Program::Impl::fitClusters(const Launch &launch, KernelLaunch &kernel,
                                const std::string &where, std::string &error) {
  // A persistent kernel loops over its work with a stride of its grid, so
  // it may run with fewer CTAs; a clustered one must, where the device
  // cannot hold all of its clusters at once: the clusters left over would
  // wait for the first ones to finish all of their work. (Each cluster
  // needs its CTAs on SMs of one GPC, and GPCs have unequal numbers of SMs:
  // large clusters of CTAs of one per SM may not all fit. An H100 holds 66
  // clusters of two.) Only grids along x are reduced.
  uint32_t clusterSize =
      launch.cluster[0] * launch.cluster[1] * launch.cluster[2];
  if (!launch.persistent || clusterSize == 1 || launch.grid[1] != 1 ||
      launch.grid[2] != 1)
    return true;
  CUlaunchAttribute attribute;
  CUlaunchConfig config =
      getLaunchConfig(launch, launch.grid, /*stream=*/nullptr, attribute);
  int clusters = 0;
  if (CUresult r =
          cuOccupancyMaxActiveClusters(&clusters, kernel.function, &config))
    return failCuda(error, "cuOccupancyMaxActiveClusters", r,
                    where + ", clusters of " + std::to_string(clusterSize));
  if (clusters < 1) {
    error = where + ": " + deviceName + " cannot run a cluster of " +
            std::to_string(clusterSize) + " CTAs of " +
            std::to_string(launch.sharedBytes) + " bytes of shared memory";
    return false;
  }
  kernel.grid[0] = std::min<uint64_t>(launch.grid[0],
                                      uint64_t(clusters) * launch.cluster[0]);
  return true;
}

/// Temporaries (zeroed), constants and state (uploaded from their files).
bool Program::Impl::allocateBuffers(const Manifest &manifest,
                                    std::string &error) {
  owned.assign(manifest.buffers.size(), 0);
  addresses.assign(manifest.buffers.size(), 0);
  // Temporaries start zeroed, so that padding no launch writes (rows padded
  // for TMA) reads as zeros; constants and state are uploaded.
  auto allocate = [&](size_t bytes, CUdeviceptr &pointer,
                      const std::string &what, bool zero) {
    if (CUresult r = cuMemAlloc(&pointer, bytes ? bytes : 1))
      return failCuda(error, "cuMemAlloc", r,
                      std::to_string(bytes) + " bytes for " + what);
    allocations.push_back(pointer);
    if (zero)
      if (CUresult r = cuMemsetD8(pointer, 0, bytes ? bytes : 1))
        return failCuda(error, "cuMemsetD8", r, what);
    return true;
  };
  // Temporaries with an offset share the workspace (the manifest reader
  // checked that no two are live at once where their bytes meet).
  // (Allocated when any temporary lies in it, empty ones included, so that
  // none has a null address.)
  CUdeviceptr workspace = 0;
  bool inWorkspace = std::any_of(
      manifest.buffers.begin(), manifest.buffers.end(), [](const Buffer &b) {
        return b.kind == BufferKind::Temp && b.offset >= 0;
      });
  if (inWorkspace && !allocate(manifest.workspaceBytes, workspace,
                               "the workspace", /*zero=*/true))
    return false;
  for (const Buffer &buffer : manifest.buffers) {
    if (buffer.kind != BufferKind::Temp &&
        buffer.kind != BufferKind::Constant && buffer.kind != BufferKind::State)
      continue;
    CUdeviceptr &pointer = owned[buffer.id];
    if (buffer.kind == BufferKind::Temp && buffer.offset >= 0) {
      pointer = workspace + CUdeviceptr(buffer.offset);
      continue;
    }
    std::string what = std::string(getBufferKindName(buffer.kind)) + " " +
                       describeBuffer(buffer);
    if (!allocate(buffer.bytes, pointer, what,
                  /*zero=*/buffer.kind == BufferKind::Temp))
      return false;
    if (buffer.kind == BufferKind::Temp)
      continue;
    std::string contents;
    if (!readFile(joinPath(manifest.directory, buffer.file), contents, error))
      return false;
    if (contents.size() != buffer.bytes) {
      error = std::string(getBufferKindName(buffer.kind)) + " file '" +
              buffer.file + "' holds " + std::to_string(contents.size()) +
              " bytes, expected " + std::to_string(buffer.bytes);
      return false;
    }
    if (CUresult r = cuMemcpyHtoD(pointer, contents.data(), buffer.bytes))
      return failCuda(error, "cuMemcpyHtoD", r, what);
  }
  return true;
}

std::array<uint32_t, 3> Program::getLaunchGrid(size_t launch) const {
  if (impl && launch < impl->kernels.size() && impl->kernels[launch].function)
    return impl->kernels[launch].grid;
  return manifest.launches.at(launch).grid;
}

unsigned Program::getNumGraphCaptures() const {
  return impl ? impl->graphCaptures : 0;
}

/// "kernel 'k', launch 3 of 7": what step `i` is, for messages.
std::string Program::Impl::describeStep(const Manifest &manifest, size_t i) {
  const Launch &launch = manifest.launches[i];
  std::string what;
  switch (launch.kind) {
  case LaunchKind::Fill:
    what = "fill of " + describeBuffer(manifest.buffers[launch.buffer]);
    break;
  case LaunchKind::Copy:
    what = "copy of " + describeBuffer(manifest.buffers[launch.from]) + " to " +
           describeBuffer(manifest.buffers[launch.to]);
    break;
  case LaunchKind::Kernel:
    what = "kernel '" + launch.kernel + "'";
    break;
  }
  return what + ", launch " + std::to_string(i) + " of " +
         std::to_string(manifest.launches.size());
}

/// Points kernel launch `i`'s parameters at this run's buffers, encoding
/// its tensor maps on the host when their buffer moved. The launch copies
/// the parameters, tensor maps included, so a graph captures them by value.
bool Program::Impl::bindParams(const Manifest &manifest, size_t i,
                               std::string &error) {
  const Launch &launch = manifest.launches[i];
  KernelLaunch &kernel = kernels[i];
  for (size_t p = 0; p < launch.params.size(); ++p) {
    const Param &param = launch.params[p];
    ParamSlot &slot = kernel.slots[p];
    if (param.kind == ParamKind::Buffer) {
      slot.pointer = addresses[param.buffer];
      continue;
    }
    if (param.kind != ParamKind::TensorMap)
      continue;
    const TensorMap &map = param.map;
    CUdeviceptr base = addresses[map.buffer];
    if (slot.encodedFor == base && base)
      continue; // same buffer as last run: the descriptor still holds
    const Buffer &buffer = manifest.buffers[map.buffer];
    if (base % 16 != 0) {
      error = describeStep(manifest, i) + ", parameter " + std::to_string(p) +
              ": the tensor map's " + describeBuffer(buffer) + " is at " +
              formatAddress(base) +
              ", which is not 16-byte aligned (TMA needs it)";
      return false;
    }
    std::vector<cuuint64_t> dims(map.dims.begin(), map.dims.end());
    std::vector<cuuint64_t> strides(map.strides.begin(), map.strides.end());
    std::vector<cuuint32_t> box(map.box.begin(), map.box.end());
    std::vector<cuuint32_t> elementStrides(map.dims.size(), 1);
    if (CUresult r = cuTensorMapEncodeTiled(
            &slot.map, getTensorMapDataType(map.type),
            cuuint32_t(map.dims.size()), reinterpret_cast<void *>(base),
            dims.data(), strides.empty() ? nullptr : strides.data(), box.data(),
            elementStrides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
            getSwizzle(map.swizzle), getL2Promotion(map.l2Promotion),
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)) {
      slot.encodedFor = 0;
      return failCuda(error, "cuTensorMapEncodeTiled", r,
                      describeStep(manifest, i) + ", parameter " +
                          std::to_string(p) + " over " +
                          describeBuffer(buffer));
    }
    slot.encodedFor = base;
  }
  return true;
}

/// Enqueues step `i` on `stream`. Every step is a stream operation, with no
/// host work between steps, so that a stream capture records the whole
/// program; a new kind of step must keep it so, or make graph runs refuse
/// it.
bool Program::Impl::enqueueStep(const Manifest &manifest, size_t i,
                                CUstream stream, std::string &error) {
  const Launch &launch = manifest.launches[i];
  switch (launch.kind) {
  case LaunchKind::Fill: {
    const Buffer &buffer = manifest.buffers[launch.buffer];
    if (buffer.bytes)
      if (CUresult r = cuMemsetD8Async(addresses[launch.buffer], launch.byte,
                                       buffer.bytes, stream))
        return failCuda(error, "cuMemsetD8Async", r, describeStep(manifest, i));
    return true;
  }
  case LaunchKind::Copy:
    if (launch.bytes)
      if (CUresult r =
              cuMemcpyDtoDAsync(addresses[launch.to], addresses[launch.from],
                                launch.bytes, stream))
        return failCuda(error, "cuMemcpyDtoDAsync", r,
                        describeStep(manifest, i));
    return true;
  case LaunchKind::Kernel:
    break;
  }

  KernelLaunch &kernel = kernels[i];
  CUlaunchAttribute attribute;
  CUlaunchConfig config =
      getLaunchConfig(launch, kernel.grid, stream, attribute);
  if (CUresult r = cuLaunchKernelEx(&config, kernel.function,
                                    kernel.args.data(), nullptr))
    return failCuda(error, "cuLaunchKernelEx", r,
                    describeStep(manifest, i) + ", grid " +
                        std::to_string(kernel.grid[0]) + "x" +
                        std::to_string(kernel.grid[1]) + "x" +
                        std::to_string(kernel.grid[2]) + ", block " +
                        std::to_string(launch.block[0]) + "x" +
                        std::to_string(launch.block[1]) + "x" +
                        std::to_string(launch.block[2]) + ", cluster " +
                        std::to_string(launch.cluster[0]) + "x" +
                        std::to_string(launch.cluster[1]) + "x" +
                        std::to_string(launch.cluster[2]) + ", " +
                        std::to_string(launch.sharedBytes) + " bytes shared");
  return true;
}

/// Records the launch sequence into `graph` on the program's capture stream.
/// Nothing runs while a stream captures, so the stream the run was given
/// may still be busy with an earlier run; and capturing a stream of our own
/// works whatever the caller passed, the legacy default stream (which
/// cannot be captured) included.
bool Program::Impl::captureGraph(const Manifest &manifest, CUgraph &graph,
                                 std::string &error) {
  if (!captureStream)
    if (CUresult r = cuStreamCreate(&captureStream, CU_STREAM_NON_BLOCKING))
      return failCuda(error, "cuStreamCreate", r, "the graph capture stream");
  // Thread-local mode: another thread's unrelated CUDA calls neither break
  // this capture nor are refused because of it.
  if (CUresult r = cuStreamBeginCapture(captureStream,
                                        CU_STREAM_CAPTURE_MODE_THREAD_LOCAL))
    return failCuda(error, "cuStreamBeginCapture", r);
  bool enqueued = true;
  for (size_t i = 0; i < manifest.launches.size() && enqueued; ++i)
    enqueued = enqueueStep(manifest, i, captureStream, error);
  // The capture must end whatever happened, or the stream stays capturing.
  graph = nullptr;
  CUresult ended = cuStreamEndCapture(captureStream, &graph);
  if (enqueued && ended == CUDA_SUCCESS)
    return true;
  if (graph)
    cuGraphDestroy(graph);
  graph = nullptr;
  if (!enqueued) {
    error = "while capturing a CUDA graph: " + error;
    return false;
  }
  return failCuda(error, "cuStreamEndCapture", ended);
}

/// Replays the program's graph on `stream`, capturing it first when this
/// run's addresses differ from those it was captured with.
bool Program::Impl::runGraph(const Manifest &manifest, CUstream stream,
                             std::string &error) {
  if (!graphExec || graphAddresses != addresses) {
    for (size_t i = 0; i < manifest.launches.size(); ++i)
      if (manifest.launches[i].kind == LaunchKind::Kernel &&
          !bindParams(manifest, i, error))
        return false;
    CUgraph graph = nullptr;
    if (!captureGraph(manifest, graph, error))
      return false;
    ++graphCaptures;
    // Same steps with other pointers: the topology is the same, so the
    // driver can usually patch the parameters of the executable graph in
    // place, which is much cheaper than instantiating it again.
    CUresult result = CUDA_ERROR_NOT_READY;
    if (graphExec) {
      CUgraphExecUpdateResultInfo info;
      std::memset(&info, 0, sizeof(info));
      result = cuGraphExecUpdate(graphExec, graph, &info);
      if (result != CUDA_SUCCESS) {
        // An executable graph still in flight is freed when it completes.
        cuGraphExecDestroy(graphExec);
        graphExec = nullptr;
      }
    }
    if (!graphExec)
      result = cuGraphInstantiate(&graphExec, graph, 0);
    cuGraphDestroy(graph);
    if (result != CUDA_SUCCESS) {
      graphExec = nullptr;
      graphAddresses.clear();
      return failCuda(error, "cuGraphInstantiate", result,
                      std::to_string(manifest.launches.size()) + " launches");
    }
    graphAddresses = addresses;
  }
  if (CUresult r = cuGraphLaunch(graphExec, stream))
    return failCuda(error, "cuGraphLaunch", r,
                    std::to_string(manifest.launches.size()) + " launches");
  return true;
}

bool Program::run(const CUdeviceptr *inputs, const CUdeviceptr *outputs,
                  CUstream stream, const RunOptions &options,
                  std::string &error) {
  if (options.graph && options.synchronize) {
    error = "run: synchronizing after every launch and CUDA graph replay "
            "exclude each other (a graph runs as one unit); run without the "
            "graph to find a faulting launch";
    return false;
  }
  if (!impl || !impl->hasDevice) {
    error = "the program was loaded without a device (manifest only); load "
            "it with fp8rt_load / Program::load to run it";
    return false;
  }
  Impl &state = *impl;
  if ((!inputs && !manifest.inputs.empty()) ||
      (!outputs && !manifest.outputs.empty())) {
    error = "run: the input or output pointer array is null";
    return false;
  }

  // Every buffer's address in this run.
  for (const Buffer &buffer : manifest.buffers) {
    CUdeviceptr pointer = state.owned[buffer.id];
    const char *role = nullptr;
    if (buffer.kind == BufferKind::Input) {
      pointer = inputs[buffer.index];
      role = "input";
    } else if (buffer.kind == BufferKind::Output) {
      pointer = outputs[buffer.index];
      role = "output";
    }
    if (role && !pointer && buffer.bytes && !buffer.unread) {
      error = std::string("run: ") + role + " " + std::to_string(buffer.index) +
              " (" + describeBuffer(buffer) + ") is a null pointer";
      return false;
    }
    if (role && pointer % kArgumentAlignment != 0) {
      error = std::string("run: ") + role + " " + std::to_string(buffer.index) +
              " (" + describeBuffer(buffer) + ") is at " +
              formatAddress(pointer) + ", which is not " +
              std::to_string(kArgumentAlignment) +
              "-byte aligned (kernels access arguments in vectors of up to " +
              std::to_string(kArgumentAlignment) + " bytes)";
      return false;
    }
    state.addresses[buffer.id] = pointer;
  }

  ScopedContext scope(state.context);
  if (options.graph)
    return manifest.launches.empty() || state.runGraph(manifest, stream, error);
  for (size_t i = 0; i < manifest.launches.size(); ++i) {
    if (manifest.launches[i].kind == LaunchKind::Kernel &&
        !state.bindParams(manifest, i, error))
      return false;
    if (!state.enqueueStep(manifest, i, stream, error))
      return false;
    if (options.synchronize)
      if (CUresult r = cuStreamSynchronize(stream))
        return failCuda(error, "cuStreamSynchronize", r,
                        "after " + state.describeStep(manifest, i) +
                            ": it failed");
  }
  return true;
}

} // namespace fp8rt
