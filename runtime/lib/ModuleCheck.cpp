//===- ModuleCheck.cpp - Launch manifests checked against their kernels ---===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Manifest.h"
#include "fp8rt/Module.h"

#include <algorithm>

namespace fp8rt {

namespace {

const char *describeParamKind(ParamKind kind) {
  switch (kind) {
  case ParamKind::Buffer:
    return "a buffer (a 64-bit integer: .u64, .s64 or .b64)";
  case ParamKind::I32:
    return "an i32 (.u32, .s32 or .b32)";
  case ParamKind::F32:
    return "an f32 (.f32 or .b32)";
  case ParamKind::TensorMap:
    return "a tensor map (.align 64 .b8 [128])";
  }
  return "?";
}

/// Whether a manifest parameter of `kind` is passed as `param`.
bool matchesParam(ParamKind kind, const PtxParam &param) {
  const std::string &t = param.type;
  if (kind == ParamKind::TensorMap)
    return param.isArray && param.bytes == 128 && param.align >= 64;
  if (param.isArray)
    return false;
  switch (kind) {
  case ParamKind::Buffer:
    return t == ".u64" || t == ".s64" || t == ".b64";
  case ParamKind::I32:
    return t == ".u32" || t == ".s32" || t == ".b32";
  case ParamKind::F32:
    return t == ".f32" || t == ".b32";
  case ParamKind::TensorMap:
    break;
  }
  return false;
}

std::string formatExtents(const std::array<uint32_t, 3> &extents) {
  return std::to_string(extents[0]) + ", " + std::to_string(extents[1]) + ", " +
         std::to_string(extents[2]);
}

/// Checks one kernel launch against its PTX entry.
class LaunchChecker {
public:
  LaunchChecker(const Manifest &manifest, const std::string &ptxName,
                std::string &error)
      : manifest(manifest), ptxName(ptxName), error(error) {}

  bool check(const Launch &launch, const PtxKernel &kernel);

private:
  bool fail(Location at, const std::string &where, const std::string &what) {
    error =
        manifest.path + ": " + formatLocation(at) + ": " + where + ": " + what;
    return false;
  }
  /// "kernel 'k' (fp8_kernels.ptx, line 12)".
  std::string describe(const PtxKernel &kernel) const {
    return "kernel '" + kernel.name + "' (" + ptxName + ", line " +
           std::to_string(kernel.line) + ")";
  }

  const Manifest &manifest;
  const std::string &ptxName;
  std::string &error;
};

bool LaunchChecker::check(const Launch &launch, const PtxKernel &kernel) {
  const std::string &where = launch.where;
  if (launch.params.size() != kernel.params.size())
    return fail(launch.paramsAt, where + ".params",
                std::to_string(launch.params.size()) + " parameters, but " +
                    describe(kernel) + " takes " +
                    std::to_string(kernel.params.size()));
  for (size_t p = 0; p < launch.params.size(); ++p) {
    const Param &param = launch.params[p];
    const PtxParam &declared = kernel.params[p];
    std::string at = where + ".params[" + std::to_string(p) + "]";
    if (!matchesParam(param.kind, declared))
      return fail(param.at, at,
                  std::string("the manifest passes ") +
                      describeParamKind(param.kind) + ", but parameter " +
                      std::to_string(p) + " of " + describe(kernel) +
                      " is '.param " + declared.declaration + "'");
    int64_t id = param.kind == ParamKind::Buffer      ? param.buffer
                 : param.kind == ParamKind::TensorMap ? param.map.buffer
                                                      : -1;
    if (id < 0 || !declared.stored)
      continue;
    const Buffer &buffer = manifest.buffers[id];
    if (buffer.kind == BufferKind::Input || buffer.kind == BufferKind::Constant)
      return fail(
          param.bufferAt, at + ".buffer",
          describe(kernel) + " stores through parameter " + std::to_string(p) +
              ", but buffer " + std::to_string(id) + " is " +
              (buffer.kind == BufferKind::Input ? "an input" : "a constant") +
              ", which no launch may write");
  }
  uint64_t threads =
      uint64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  if (kernel.reqntid[0] && launch.block != kernel.reqntid)
    return fail(launch.blockAt, where + ".block",
                "block [" + formatExtents(launch.block) + "], but " +
                    describe(kernel) + " must run in blocks of exactly [" +
                    formatExtents(kernel.reqntid) + "] (.reqntid)");
  uint64_t maxThreads =
      uint64_t(kernel.maxntid[0]) * kernel.maxntid[1] * kernel.maxntid[2];
  if (maxThreads && threads > maxThreads)
    return fail(launch.blockAt, where + ".block",
                "block [" + formatExtents(launch.block) + "] has " +
                    std::to_string(threads) + " threads, but " +
                    describe(kernel) + " runs at most " +
                    std::to_string(maxThreads) + " (.maxntid " +
                    formatExtents(kernel.maxntid) + ")");
  return true;
}

/// "a, b, c" of at most five kernel names, for messages.
std::string listKernels(const PtxModule &module) {
  std::string text;
  size_t count = module.kernels.size();
  for (size_t i = 0; i < count && i < 5; ++i)
    text += (i ? ", " : "") + module.kernels[i].name;
  if (count > 5)
    text += ", ... (" + std::to_string(count) + " in all)";
  return count ? text : "none";
}

} // namespace

bool checkManifestModule(const Manifest &manifest, std::string &error) {
  auto fail = [&](Location at, const std::string &where,
                  const std::string &what) {
    error =
        manifest.path + ": " + formatLocation(at) + ": " + where + ": " + what;
    return false;
  };
  std::string ptxPath = joinPath(manifest.directory, manifest.ptxFile);
  std::string text, problem;
  if (!readFile(ptxPath, text, error))
    return false;
  PtxModule module;
  if (!parsePtx(text, module, problem))
    return fail(manifest.ptxAt, "modules.ptx",
                "cannot read the kernels of '" + ptxPath + "': " + problem);
  if (module.target != manifest.chip)
    return fail(manifest.chipAt, "chip",
                "the manifest is for " + manifest.chip + ", but '" +
                    manifest.ptxFile + "' targets " + module.target);

  std::vector<std::string> cubinFunctions;
  if (!manifest.cubinFile.empty()) {
    std::string cubinPath = joinPath(manifest.directory, manifest.cubinFile);
    std::string image;
    if (!readFile(cubinPath, image, error))
      return false;
    if (!readCubinFunctions(image, cubinFunctions, problem))
      return fail(manifest.cubinAt, "modules.cubin",
                  "cannot read the functions of '" + cubinPath +
                      "': " + problem);
  }

  LaunchChecker checker(manifest, manifest.ptxFile, error);
  for (const Launch &launch : manifest.launches) {
    if (launch.kind != LaunchKind::Kernel)
      continue;
    const PtxKernel *kernel = module.find(launch.kernel);
    if (!kernel)
      return fail(launch.kernelAt, launch.where + ".kernel",
                  "no kernel '" + launch.kernel + "' in '" + manifest.ptxFile +
                      "' (its kernels: " + listKernels(module) + ")");
    if (!manifest.cubinFile.empty() &&
        std::find(cubinFunctions.begin(), cubinFunctions.end(),
                  launch.kernel) == cubinFunctions.end())
      return fail(launch.kernelAt, launch.where + ".kernel",
                  "kernel '" + launch.kernel + "' is in '" + manifest.ptxFile +
                      "' but not in '" + manifest.cubinFile +
                      "'; the two modules were not compiled together");
    if (!checker.check(launch, *kernel))
      return false;
  }
  return true;
}

} // namespace fp8rt
