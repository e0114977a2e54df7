//===- fp8-run.cpp - Check or run an fp8-mlir launch manifest -------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
//   fp8-run --check MANIFEST.json
//   fp8-run MANIFEST.json [--inputs a.bin b.bin ...] [--random-inputs SEED]
//           [--outputs-dir DIR] [--repeat N] [--warmup N] [--no-sync]
//           [--graph]
//
// --check parses and validates the manifest and the files it names and
// prints a summary; it needs no GPU and no CUDA driver. Running loads
// libfp8rt.so (and through it the driver's libcuda.so.1) only then, with
// dlopen, so that this tool starts on machines without a driver. It uses the
// runtime's C API exactly as a foreign-language binding would.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Manifest.h"
#include "fp8rt/fp8rt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <new>
#include <string>
#include <unistd.h>
#include <vector>

using namespace fp8rt;

namespace {

// Two-level stringizing, so that cuda.h's versioned names (cuMemAlloc ->
// cuMemAlloc_v2) are what dlsym looks up.
#define FP8RUN_STR2(x) #x
#define FP8RUN_STR(x) FP8RUN_STR2(x)

/// The driver functions this tool calls itself (libfp8rt.so does the rest).
#define FP8RUN_CUDA_FUNCTIONS(X)                                               \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuEventCreate)                                                             \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)                                                        \
  X(cuEventDestroy)                                                            \
  X(cuCtxGetDevice)                                                            \
  X(cuDeviceGetName)                                                           \
  X(cuGetErrorName)

/// The runtime's C API.
#define FP8RUN_RT_FUNCTIONS(X)                                                 \
  X(fp8rt_load)                                                                \
  X(fp8rt_destroy)                                                             \
  X(fp8rt_run_ex)                                                              \
  X(fp8rt_last_error)                                                          \
  X(fp8rt_graph_captures)                                                      \
  X(fp8rt_module_kind)                                                         \
  X(fp8rt_launch_grid)

struct Api {
#define FP8RUN_DECLARE(name) decltype(&::name) name = nullptr;
  FP8RUN_CUDA_FUNCTIONS(FP8RUN_DECLARE)
  FP8RUN_RT_FUNCTIONS(FP8RUN_DECLARE)
#undef FP8RUN_DECLARE
};

int fail(const std::string &message) {
  std::fprintf(stderr, "fp8-run: error: %s\n", message.c_str());
  return 1;
}

/// Command-line mistakes exit with 2.
int usageError(const std::string &message) {
  fail(message);
  return 2;
}

void printUsage(FILE *out) {
  std::fprintf(
      out,
      "usage: fp8-run --check MANIFEST.json\n"
      "       fp8-run MANIFEST.json [--inputs A.bin B.bin ...] "
      "[--random-inputs SEED]\n"
      "               [--outputs-dir DIR] [--repeat N] [--warmup N] "
      "[--no-sync]\n"
      "               [--graph]\n"
      "\n"
      "MANIFEST.json is what `fp8-opt --fp8-gpu-pipeline=\"... "
      "artifacts=DIR\"` writes\n"
      "(DIR/<function>.json); a directory holding one manifest works too.\n"
      "\n"
      "  --check              parse and validate the manifest and its files, "
      "print a\n"
      "                       summary; needs no GPU\n"
      "  --inputs FILES       one raw little-endian file per function "
      "argument, of\n"
      "                       exactly the argument's bytes\n"
      "  --random-inputs SEED deterministic random arguments (default, seed "
      "1):\n"
      "                       8-bit floats of magnitude 1/8 to 8, E8M0 "
      "scales 2^-3..2^3,\n"
      "                       f32 in [0.5, 2), bf16/f16 in [-1, 1)\n"
      "  --outputs-dir DIR    write result i to DIR/output<i>.bin\n"
      "  --repeat N           time N runs with CUDA events (default 1)\n"
      "  --warmup N           untimed runs before timing (default 1)\n"
      "  --no-sync            do not synchronize after each launch of the "
      "first run\n"
      "  --graph              warm-up and timed runs replay the launches as "
      "one CUDA\n"
      "                       graph (the first run stays launch by launch)\n"
      "\n"
      "The runtime library is <bindir>/../lib/libfp8rt.so (or "
      "$FP8RT_LIBRARY).\n");
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// splitmix64: small, fast, and the same everywhere.
struct Random {
  uint64_t state;
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1).
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
  uint32_t below(uint32_t n) { return uint32_t(next() % n); }
};

uint16_t toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits += 0x7FFF + ((bits >> 16) & 1);
  return uint16_t(bits >> 16);
}

uint16_t toF16(float value) {
  // Values in [-1, 1): normal or subnormal halfs, no overflow.
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  float magnitude = std::fabs(value);
  if (magnitude < 0x1.0p-14f)
    return sign | uint16_t(std::lrint(magnitude * 0x1.0p24f));
  int exponent;
  float mantissa = std::frexp(magnitude, &exponent); // [0.5, 1)
  long m = std::lrint((mantissa * 2 - 1) * 1024);
  if (m == 1024) {
    m = 0;
    ++exponent;
  }
  return sign | uint16_t((exponent - 1 + 15) << 10) | uint16_t(m);
}

/// Random contents for a buffer of `dtype`; see --help for the ranges.
std::vector<uint8_t> randomBytes(const Buffer &buffer, Random &random) {
  std::vector<uint8_t> bytes(buffer.bytes);
  size_t elements = buffer.bitWidth >= 8 ? buffer.bytes / (buffer.bitWidth / 8)
                                         : buffer.bytes;
  for (size_t i = 0; i < elements; ++i) {
    uint8_t sign = random.below(2) ? 0x80 : 0;
    switch (buffer.type) {
    case DType::F8E4M3:
      // Exponent fields 4..10 (bias 7): magnitudes 2^-3 to 2^3 * 1.875.
      bytes[i] =
          sign | uint8_t((4 + random.below(7)) << 3) | uint8_t(random.below(8));
      break;
    case DType::F8E5M2:
      // Exponent fields 12..18 (bias 15).
      bytes[i] = sign | uint8_t((12 + random.below(7)) << 2) |
                 uint8_t(random.below(4));
      break;
    case DType::F8E8M0:
      bytes[i] = uint8_t(124 + random.below(7));
      break;
    case DType::F32: {
      float v = float(0.5 + 1.5 * random.uniform());
      std::memcpy(&bytes[4 * i], &v, 4);
      break;
    }
    case DType::BF16:
    case DType::F16: {
      float v = float(2 * random.uniform() - 1);
      uint16_t h = buffer.type == DType::BF16 ? toBF16(v) : toF16(v);
      std::memcpy(&bytes[2 * i], &h, 2);
      break;
    }
    case DType::F4E2M1:
    case DType::Int:
      // Every E2M1 code is finite; integers take any bits.
      bytes[i] = uint8_t(random.next());
      break;
    }
  }
  return bytes;
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

float fromBF16(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

float fromF16(uint16_t h) {
  int exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  float v;
  if (exponent == 0)
    v = std::ldexp(float(mantissa), -24);
  else if (exponent == 31)
    v = mantissa ? NAN : INFINITY;
  else
    v = std::ldexp(float(mantissa + 1024), exponent - 25);
  return (h & 0x8000) ? -v : v;
}

/// "max |x| = 12.5, 0 NaN, 0 Inf" for wide float results; empty otherwise.
std::string summarizeValues(const Buffer &buffer,
                            const std::vector<uint8_t> &bytes) {
  DType type = buffer.type;
  if (type != DType::F32 && type != DType::BF16 && type != DType::F16)
    return "";
  size_t width = type == DType::F32 ? 4 : 2;
  size_t count = bytes.size() / width, nans = 0, infs = 0;
  double maxAbs = 0, sumAbs = 0;
  for (size_t i = 0; i < count; ++i) {
    float v;
    if (width == 4) {
      std::memcpy(&v, &bytes[4 * i], 4);
    } else {
      uint16_t h;
      std::memcpy(&h, &bytes[2 * i], 2);
      v = type == DType::BF16 ? fromBF16(h) : fromF16(h);
    }
    if (std::isnan(v)) {
      ++nans;
    } else if (std::isinf(v)) {
      ++infs;
    } else {
      maxAbs = std::max(maxAbs, double(std::fabs(v)));
      sumAbs += std::fabs(v);
    }
  }
  char text[160];
  std::snprintf(text, sizeof(text),
                "max |x| %.6g, mean |x| %.6g, %zu NaN, %zu Inf", maxAbs,
                count ? sumAbs / double(count) : 0.0, nans, infs);
  return text;
}

//===----------------------------------------------------------------------===//
// Loading the runtime
//===----------------------------------------------------------------------===//

std::string getExecutableDirectory() {
  char path[4096];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0)
    return ".";
  path[n] = '\0';
  return std::filesystem::path(path).parent_path().string();
}

/// dlopens libfp8rt.so and resolves the functions this tool calls.
bool loadApi(Api &api, std::string &error) {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("FP8RT_LIBRARY"))
    candidates.push_back(env);
  std::string bin = getExecutableDirectory();
  candidates.push_back(bin + "/../lib/libfp8rt.so");
  candidates.push_back(bin + "/libfp8rt.so");
  candidates.push_back("libfp8rt.so");
  void *handle = nullptr;
  std::string tried;
  for (const std::string &candidate : candidates) {
    bool isPath = candidate.find('/') != std::string::npos;
    std::error_code ec;
    if (isPath && !std::filesystem::exists(candidate, ec))
      continue;
    handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle)
      break;
    const char *why = dlerror();
    tried += "\n  " + candidate + ": " + (why ? why : "unknown error");
    if (isPath)
      break; // it exists but does not load: report that, not a fallback
  }
  if (!handle) {
    error =
        "cannot load the runtime library libfp8rt.so" +
        (tried.empty() ? std::string(" (not found next to fp8-run)") : tried) +
        "\nrunning kernels needs the NVIDIA driver (libcuda.so.1); "
        "`fp8-run --check` works without it";
    return false;
  }
#define FP8RUN_LOAD(name)                                                      \
  api.name =                                                                   \
      reinterpret_cast<decltype(api.name)>(dlsym(handle, FP8RUN_STR(name)));   \
  if (!api.name) {                                                             \
    error = std::string("the runtime library lacks ") + FP8RUN_STR(name);      \
    return false;                                                              \
  }
  FP8RUN_CUDA_FUNCTIONS(FP8RUN_LOAD)
  FP8RUN_RT_FUNCTIONS(FP8RUN_LOAD)
#undef FP8RUN_LOAD
  return true;
}

std::string cudaError(const Api &api, const char *call, CUresult result) {
  const char *name = nullptr;
  if (api.cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return std::string(call) + ": CUDA error " + std::to_string(int(result));
  return std::string(call) + ": " + name;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

struct Options {
  std::string manifest;
  bool check = false;
  std::vector<std::string> inputs;
  bool randomInputs = false;
  uint64_t seed = 1;
  std::string outputsDir;
  int repeat = 1;
  int warmup = 1;
  bool sync = true;
  bool graph = false;
};

bool parseCount(const char *text, int lo, int &out) {
  char *end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (!end || *end || v < lo || v > 1000000)
    return false;
  out = int(v);
  return true;
}

int run(const Options &options, const Manifest &manifest) {
  // Inputs on the host first: their problems need no GPU.
  size_t numInputs = manifest.inputs.size();
  if (!options.inputs.empty() && options.inputs.size() != numInputs)
    return fail("--inputs gives " + std::to_string(options.inputs.size()) +
                " files, but '" + manifest.function + "' takes " +
                std::to_string(numInputs) + " arguments");
  std::vector<std::vector<uint8_t>> hostInputs(numInputs);
  Random random(options.seed);
  for (size_t i = 0; i < numInputs; ++i) {
    const Buffer &buffer = manifest.getInput(i);
    if (options.inputs.empty()) {
      hostInputs[i] = randomBytes(buffer, random);
      continue;
    }
    std::string contents, error;
    if (!readFile(options.inputs[i], contents, error))
      return fail(error);
    if (contents.size() != buffer.bytes)
      return fail("input " + std::to_string(i) + " '" + options.inputs[i] +
                  "' holds " + std::to_string(contents.size()) +
                  " bytes, but argument " + std::to_string(i) + " (" +
                  buffer.dtype + " " + formatShape(buffer.shape) + ") takes " +
                  std::to_string(buffer.bytes));
    hostInputs[i].assign(contents.begin(), contents.end());
  }

  Api api;
  std::string error;
  if (!loadApi(api, error))
    return fail(error);
  fp8rt_program *program = nullptr;
  char message[8192];
  if (api.fp8rt_load(options.manifest.c_str(), &program, message,
                     sizeof(message)))
    return fail(message);

  CUdevice device = 0;
  char deviceName[256] = "?";
  if (api.cuCtxGetDevice(&device) == CUDA_SUCCESS)
    api.cuDeviceGetName(deviceName, sizeof(deviceName) - 1, device);
  std::printf("device: %s\nloaded: %s (%s)\n", deviceName,
              manifest.path.c_str(), api.fp8rt_module_kind(program));
  // Persistent launches in clusters run as many clusters as the device
  // holds at once.
  for (size_t i = 0; i < manifest.launches.size(); ++i) {
    unsigned grid[3];
    const Launch &launch = manifest.launches[i];
    if (api.fp8rt_launch_grid(program, i, grid) == 0 &&
        grid[0] != launch.grid[0])
      std::printf("launch %zu (%s): grid %u of the manifest's %u, the "
                  "clusters of %u this device holds at once\n",
                  i, launch.kernel.c_str(), grid[0], launch.grid[0],
                  launch.cluster[0] * launch.cluster[1] * launch.cluster[2]);
  }

  int status = 0;
  std::vector<CUdeviceptr> inputs(numInputs, 0),
      outputs(manifest.outputs.size(), 0);
  CUstream stream = nullptr;
  CUevent start = nullptr, stop = nullptr;
  auto check = [&](const char *call, CUresult result) {
    if (result == CUDA_SUCCESS)
      return true;
    status = fail(cudaError(api, call, result));
    return false;
  };
  auto allocate = [&](std::vector<CUdeviceptr> &pointers, bool input) {
    for (size_t i = 0; i < pointers.size(); ++i) {
      const Buffer &b = input ? manifest.getInput(i) : manifest.getOutput(i);
      if (!check("cuMemAlloc",
                 api.cuMemAlloc(&pointers[i], std::max<size_t>(b.bytes, 1))))
        return false;
      if (input && b.bytes &&
          !check("cuMemcpyHtoD",
                 api.cuMemcpyHtoD(pointers[i], hostInputs[i].data(), b.bytes)))
        return false;
    }
    return true;
  };

  do {
    if (!allocate(inputs, true) || !allocate(outputs, false) ||
        !check("cuStreamCreate",
               api.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING)) ||
        !check("cuEventCreate", api.cuEventCreate(&start, CU_EVENT_DEFAULT)) ||
        !check("cuEventCreate", api.cuEventCreate(&stop, CU_EVENT_DEFAULT)))
      break;

    // The first run synchronizes after every launch, so that a faulting
    // kernel is named.
    if (api.fp8rt_run_ex(program, inputs.data(), outputs.data(), stream,
                         options.sync ? FP8RT_RUN_SYNC : 0)) {
      status = fail(api.fp8rt_last_error(program));
      break;
    }
    if (!check("cuStreamSynchronize", api.cuStreamSynchronize(stream)))
      break;

    // The first graph run captures; with --warmup 0 it is timed.
    unsigned flags = options.graph ? FP8RT_RUN_GRAPH : 0;
    for (int i = 0; i < options.warmup; ++i)
      if (api.fp8rt_run_ex(program, inputs.data(), outputs.data(), stream,
                           flags)) {
        status = fail(api.fp8rt_last_error(program));
        break;
      }
    if (status)
      break;
    std::vector<float> times;
    for (int i = 0; i < options.repeat; ++i) {
      float ms = 0;
      if (!check("cuEventRecord", api.cuEventRecord(start, stream)))
        break;
      if (api.fp8rt_run_ex(program, inputs.data(), outputs.data(), stream,
                           flags)) {
        status = fail(api.fp8rt_last_error(program));
        break;
      }
      if (!check("cuEventRecord", api.cuEventRecord(stop, stream)) ||
          !check("cuEventSynchronize", api.cuEventSynchronize(stop)) ||
          !check("cuEventElapsedTime",
                 api.cuEventElapsedTime(&ms, start, stop)))
        break;
      times.push_back(ms);
    }
    if (status)
      break;
    std::sort(times.begin(), times.end());
    double sum = 0;
    for (float t : times)
      sum += t;
    if (!times.empty())
      std::printf("time: %zu runs, median %.4f ms, min %.4f ms, mean %.4f "
                  "ms\n",
                  times.size(), times[times.size() / 2], times.front(),
                  sum / double(times.size()));
    if (options.graph)
      std::printf("graph: %zu launches replayed as one CUDA graph, captured "
                  "%d time(s)\n",
                  manifest.launches.size(), api.fp8rt_graph_captures(program));

    for (size_t i = 0; i < outputs.size(); ++i) {
      const Buffer &b = manifest.getOutput(i);
      std::vector<uint8_t> host(b.bytes);
      if (b.bytes && !check("cuMemcpyDtoH",
                            api.cuMemcpyDtoH(host.data(), outputs[i], b.bytes)))
        break;
      std::string summary = summarizeValues(b, host);
      std::printf("output %zu: %s %s%s%s\n", i, b.dtype.c_str(),
                  formatShape(b.shape).c_str(), summary.empty() ? "" : ": ",
                  summary.c_str());
      if (options.outputsDir.empty())
        continue;
      std::error_code ec;
      std::filesystem::create_directories(options.outputsDir, ec);
      std::string path =
          joinPath(options.outputsDir, "output" + std::to_string(i) + ".bin");
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char *>(host.data()),
                std::streamsize(host.size()));
      if (!out) {
        status = fail("cannot write '" + path + "'");
        break;
      }
    }
  } while (false);

  // Clean up what exists; errors here add nothing useful.
  if (start)
    api.cuEventDestroy(start);
  if (stop)
    api.cuEventDestroy(stop);
  if (stream)
    api.cuStreamDestroy(stream);
  for (CUdeviceptr p : inputs)
    if (p)
      api.cuMemFree(p);
  for (CUdeviceptr p : outputs)
    if (p)
      api.cuMemFree(p);
  api.fp8rt_destroy(program);
  return status;
}

} // namespace

static int runMain(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *what) -> const char * {
      if (i + 1 >= argc) {
        usageError(arg + " needs " + what);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      printUsage(stdout);
      return 0;
    } else if (arg == "--check") {
      options.check = true;
    } else if (arg == "--inputs") {
      while (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0)
        options.inputs.push_back(argv[++i]);
      if (options.inputs.empty())
        return usageError("--inputs needs at least one file");
    } else if (arg == "--random-inputs") {
      const char *text = value("a seed");
      char *end = nullptr;
      options.seed = std::strtoull(text, &end, 10);
      if (!end || *end)
        return usageError(std::string("bad seed '") + text + "'");
      options.randomInputs = true;
    } else if (arg == "--outputs-dir") {
      options.outputsDir = value("a directory");
    } else if (arg == "--repeat") {
      if (!parseCount(value("a count"), 1, options.repeat))
        return usageError("--repeat needs a count of at least 1");
    } else if (arg == "--warmup") {
      if (!parseCount(value("a count"), 0, options.warmup))
        return usageError("--warmup needs a count");
    } else if (arg == "--no-sync") {
      options.sync = false;
    } else if (arg == "--graph") {
      options.graph = true;
    } else if (!arg.empty() && arg[0] == '-') {
      printUsage(stderr);
      return usageError("unknown option '" + arg + "'");
    } else if (options.manifest.empty()) {
      options.manifest = arg;
    } else {
      return usageError("more than one manifest given ('" + options.manifest +
                        "' and '" + arg + "')");
    }
  }
  if (options.manifest.empty()) {
    printUsage(stderr);
    return usageError("no manifest given");
  }
  if (options.randomInputs && !options.inputs.empty())
    return usageError("give either --inputs or --random-inputs");

  Manifest manifest;
  std::string error;
  if (!loadManifest(options.manifest, manifest, error) ||
      !checkManifestFiles(manifest, error) ||
      !checkManifestModule(manifest, error))
    return fail(error);
  if (options.check) {
    std::printf("manifest: %s\n%s", manifest.path.c_str(),
                describeManifest(manifest).c_str());
    std::printf("ok: '%s' for %s: %zu inputs, %zu outputs, %zu launches\n",
                manifest.function.c_str(), manifest.chip.c_str(),
                manifest.inputs.size(), manifest.outputs.size(),
                manifest.launches.size());
    return 0;
  }
  return run(options, manifest);
}

int main(int argc, char **argv) {
  // A manifest, PTX or cubin too large for memory is a diagnostic, not an
  // abort.
  try {
    return runMain(argc, argv);
  } catch (const std::bad_alloc &) {
    return fail("out of memory");
  }
}
