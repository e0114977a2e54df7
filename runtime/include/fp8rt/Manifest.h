//===- Manifest.h - Launch manifests of fp8-mlir --------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// The JSON manifest that `fp8-opt --fp8-gpu-pipeline="... artifacts=DIR"`
// (fp8-write-artifacts) writes next to the kernels, read and checked without
// any CUDA: which buffers a function has (inputs, outputs, temporaries,
// constants), which module holds its kernels, and the launches that compute
// it. runtime/README.md specifies the format.
//
// Everything here is plain C++17 so that manifests can be validated (and
// unit-tested) on machines without a GPU or a CUDA driver.
//
//===----------------------------------------------------------------------===//

#ifndef FP8RT_MANIFEST_H
#define FP8RT_MANIFEST_H

#include "fp8rt/DTypes.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fp8rt {

/// The format name and version this reader understands.
constexpr const char *kManifestFormat = "fp8-mlir-launch-plan";
constexpr int64_t kManifestVersion = 1;

/// The chips a manifest may name. Both are architecture-specific targets:
/// their code runs on exactly one compute capability.
struct ChipInfo {
  const char *name;
  int major, minor;
  /// Dynamic shared memory one block may use (227 KiB on both).
  uint32_t maxSharedBytes;
};

inline constexpr ChipInfo kChips[] = {
    {"sm_90a", 9, 0, 232448},
    {"sm_100a", 10, 0, 232448},
};

/// The chip called `name`, or null.
const ChipInfo *findChip(std::string_view name);

/// Where a JSON value was written (1-based line and column; 0 if unknown).
struct Location {
  int line = 0;
  int column = 0;
};

/// "line L, column C".
std::string formatLocation(Location location);

/// State buffers hold delayed-scaling state: like constants they start from
/// a file when the program loads, and kernels update them; they keep their
/// contents from run to run.
enum class BufferKind { Input, Output, Temp, Constant, State };

/// How a buffer's bytes are arranged, when not densely in row-major order of
/// its shape. Transposed: a matrix stored with its dimensions swapped (the
/// K-major copy an sm_100a GEMM reads); a pitch counts the stored rows.
/// Tcgen05ScaleFactors: sm_100a block scales in the chunk layout the tensor
/// cores read (fp8/Target/ScaleFactorLayout.h in the compiler): chunks of
/// kScaleChunkBytes hold 128 rows x 4 scale blocks each, and rows and
/// blocks are padded to whole chunks, so the buffer holds a multiple of
/// kScaleChunkBytes and at least its dense size.
enum class BufferLayout { Dense, Transposed, Tcgen05ScaleFactors };

inline constexpr uint64_t kScaleChunkBytes = 512;

/// One tensor of the function: an argument, a result, an intermediate or a
/// constant, stored densely in row-major order.
struct Buffer {
  int64_t id = -1;
  BufferKind kind = BufferKind::Temp;
  /// Element type as written (a name of fp8rt/DTypes.h, or iN), its type
  /// and its width; f4e2m1 packs two per byte, low nibble first.
  std::string dtype;
  DType type = DType::F32;
  int bitWidth = 0;
  std::vector<int64_t> shape;
  /// Exactly ceil(elements * bitWidth / 8), or for rows padded to `pitch`
  /// elements: (elements / last dim) * pitch * bitWidth / 8.
  uint64_t bytes = 0;
  /// Elements from one row to the next when rows are padded (TMA needs
  /// 16-byte rows); 0 when dense.
  int64_t pitch = 0;
  BufferLayout layout = BufferLayout::Dense;
  /// State buffers: the global they hold.
  std::string name;
  /// Position among the function's arguments (inputs) or results (outputs).
  int64_t index = -1;
  /// Inputs that the manifest's prepare function computes
  /// (fp8-prepare-weights): its result number; -1 otherwise.
  int64_t prepared = -1;
  /// Inputs that no launch reads: the caller may pass a null pointer.
  bool unread = false;
  /// Constants and state: the file holding the (initial) bytes, relative to
  /// the manifest.
  std::string file;
  /// Temporaries: where the bytes start in the workspace (a multiple of
  /// kWorkspaceAlignment); -1 for a temporary allocated on its own.
  int64_t offset = -1;
};

/// Alignment of temporaries in the workspace: that of cuMemAlloc.
inline constexpr int64_t kWorkspaceAlignment = 256;

enum class ParamKind { Buffer, I32, F32, TensorMap };
enum class Swizzle { None, B32, B64, B128 };
enum class L2Promotion { None, B64, B128, B256 };

/// A TMA descriptor the host encodes (cuTensorMapEncodeTiled) over a buffer
/// and passes by value (a 128-byte __grid_constant__ parameter).
struct TensorMap {
  int64_t buffer = -1;
  /// Data type of the map (uint8 for 8-bit codes) and its size.
  std::string dtype;
  TensorMapDType type = TensorMapDType::UInt8;
  int elementBytes = 0;
  /// Innermost dimension first.
  std::vector<uint64_t> dims;
  /// Byte strides of dims 1.. (dim 0 is dense).
  std::vector<uint64_t> strides;
  /// Box (tile) extents, innermost first.
  std::vector<uint32_t> box;
  Swizzle swizzle = Swizzle::None;
  /// Optional in the manifest ("l2_promotion"); 256B by default.
  L2Promotion l2Promotion = L2Promotion::B256;
};

/// One kernel parameter, in declaration order.
struct Param {
  ParamKind kind = ParamKind::I32;
  /// The parameter's object and its buffer id, in the manifest.
  Location at, bufferAt;
  /// Buffer: the device pointer of this buffer (8 bytes).
  int64_t buffer = -1;
  int32_t i32 = 0;
  float f32 = 0;
  TensorMap map;
};

enum class LaunchKind { Kernel, Fill, Copy };

/// One step of the function: a kernel launch, a fill of a buffer with a
/// byte value (cuMemsetD8), or a copy of the first `bytes` bytes of one
/// buffer to another (cuMemcpyDtoD).
struct Launch {
  LaunchKind kind = LaunchKind::Kernel;
  /// "launches[3] (name)": where it is, for messages.
  std::string where;
  /// The members "kernel", "block" and "params" in the manifest.
  Location kernelAt, blockAt, paramsAt;
  // Kernel launches.
  std::string kernel;
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  std::array<uint32_t, 3> cluster = {1, 1, 1};
  /// Dynamic shared memory per block.
  uint32_t sharedBytes = 0;
  /// The grid loops over tiles (informative).
  bool persistent = false;
  std::vector<Param> params;
  // Fills.
  int64_t buffer = -1;
  uint8_t byte = 0;
  // Copies.
  int64_t from = -1;
  int64_t to = -1;
  uint64_t bytes = 0;
};

/// A parsed and checked manifest.
struct Manifest {
  /// The manifest file and the directory its file names are relative to.
  std::string path;
  std::string directory;
  std::string function;
  /// The prepare function whose results the `prepared` inputs are
  /// (fp8-prepare-weights), or empty when no input is prepared. A manifest
  /// that does not name it has prepared inputs of `<function>_prepare`.
  std::string prepare;
  std::string chip;
  Location chipAt;
  /// Module files, relative to `directory`; the cubin is optional.
  std::string ptxFile;
  std::string cubinFile;
  Location ptxAt, cubinAt;
  /// Indexed by buffer id.
  std::vector<Buffer> buffers;
  /// Buffer ids of the function's arguments and results, in order.
  std::vector<int64_t> inputs;
  std::vector<int64_t> outputs;
  std::vector<Launch> launches;
  /// Device memory holding the temporaries that have an offset. Two may
  /// share bytes only if their live ranges (from the first launch that
  /// names one to the last) are disjoint; the reader checks this.
  uint64_t workspaceBytes = 0;

  const Buffer &getInput(size_t i) const { return buffers[inputs[i]]; }
  const Buffer &getOutput(size_t i) const { return buffers[outputs[i]]; }
};

const char *getBufferKindName(BufferKind kind);
const char *getSwizzleName(Swizzle swizzle);
const char *getL2PromotionName(L2Promotion promotion);
/// "[256, 512]".
std::string formatShape(const std::vector<int64_t> &shape);

/// Parses and checks manifest text. On failure returns false and sets `error`
/// to "line L, column C: <where>: <what is wrong>".
bool parseManifest(std::string_view text, Manifest &manifest,
                   std::string &error);

/// Reads `path` (a manifest file, or a directory holding exactly one *.json
/// manifest), parses and checks it, and sets its path and directory. Errors
/// start with the file name.
bool loadManifest(const std::string &path, Manifest &manifest,
                  std::string &error);

/// Checks that the files a manifest names exist and that constant files hold
/// exactly the buffer's bytes.
bool checkManifestFiles(const Manifest &manifest, std::string &error);

/// Checks the launches against the kernels of the manifest's module
/// (fp8rt/Module.h): every kernel is an entry of the PTX, and of the cubin
/// when there is one; the PTX targets the manifest's chip; parameters match
/// the entry's in number and kind; blocks respect `.maxntid` and
/// `.reqntid`; no kernel stores through a parameter that is an input or a
/// constant buffer. Errors give the file and the JSON position.
bool checkManifestModule(const Manifest &manifest, std::string &error);

/// A human-readable summary: buffers, module and launches.
std::string describeManifest(const Manifest &manifest);

/// `file` relative to `directory` (absolute names are kept).
std::string joinPath(const std::string &directory, const std::string &file);

/// The largest file readFile reads (1 GiB): manifests, PTX, cubins and
/// constants are far smaller.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t(1) << 30;

/// Reads a whole regular file of at most kMaxFileBytes; on failure sets
/// `error` to "cannot read 'path': why".
bool readFile(const std::string &path, std::string &contents,
              std::string &error);

} // namespace fp8rt

#endif // FP8RT_MANIFEST_H
