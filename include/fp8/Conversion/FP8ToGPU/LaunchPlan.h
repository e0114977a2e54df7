//===- LaunchPlan.h - The launch plans of GPU-lowered graphs ----*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// A launch plan is what convert-fp8-to-gpu makes of one function: the
// buffers its tensors live in and the launches (kernels, fills, copies)
// that compute it, in order. This header is its one schema:
//
//   * the planner builds a `LaunchPlan`;
//   * the module keeps it as an attribute (`fp8.plans`: function name ->
//     `LaunchPlan::toAttr`), which lit tests print and `LaunchPlan::fromAttr`
//     reads back with verification;
//   * `writeManifest` serializes it as the JSON the runtime reads (the
//     user-facing description of that JSON is runtime/README.md).
//
//===----------------------------------------------------------------------===//

#ifndef FP8_CONVERSION_FP8TOGPU_LAUNCHPLAN_H
#define FP8_CONVERSION_FP8TOGPU_LAUNCHPLAN_H

#include "fp8/Dialect/FP8/IR/FP8Dialect.h"
#include "fp8/Target/Chip.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace mlir::fp8 {

/// The module attribute holding the plans: function name -> plan (declared
/// by the fp8 dialect).
constexpr llvm::StringLiteral kPlansAttr =
    FP8Dialect::PlansAttrHelper::getNameStr();

/// Device memory of a plan. Buffer `id` is its index in `LaunchPlan::buffers`.
struct PlanBuffer {
  enum class Kind {
    /// Function argument `index`, given by the caller.
    Input,
    /// Function result `index`, returned to the caller.
    Output,
    /// Lives during one run.
    Temp,
    /// Bytes of `value`, uploaded once.
    Constant,
    /// Delayed-scaling state (the ml_program global `name`): set from
    /// `value` once, kept across runs.
    State,
  };
  enum class Layout {
    /// Row-major, `type`'s shape (rows padded to `pitch` if set).
    RowMajor,
    /// sm_100a block scales in the layout of Tcgen05ScaleLayout
    /// (fp8/Target/ScaleFactorLayout.h): `bytes` of i8 or scale codes.
    Tcgen05ScaleFactors,
  };

  int64_t id = 0;
  Kind kind = Kind::Temp;
  RankedTensorType type;
  int64_t bytes = 0;
  /// Input and Output: the argument or result number.
  std::optional<int64_t> index;
  /// Rows padded to 16 bytes for TMA: elements from one row to the next.
  std::optional<int64_t> pitch;
  Layout layout = Layout::RowMajor;
  /// State: the ml_program global.
  std::string name;
  /// Input and Output: what the function's `fp8.optimizer_state` attribute
  /// says it holds (`weight`, `m.codes`, ...), for memory accounting.
  std::string role;
  /// Input: the result of `<function>_prepare` that the argument takes
  /// (fp8-prepare-weights' `fp8.prepared`).
  std::optional<int64_t> prepared;
  /// Constant and State: the initial value.
  DenseElementsAttr value;
  /// Temp: where its bytes start in the plan's workspace (a multiple of
  /// kWorkspaceAlignment). Temporaries that are never live at the same
  /// launch may share bytes.
  std::optional<int64_t> offset;
};

/// Alignment of temporaries in the workspace: that of a buffer of its own
/// (cuMemAlloc), so that TMA and vector accesses see the same addresses.
constexpr int64_t kWorkspaceAlignment = 256;

/// Kernel parameters, as the host passes them.
struct BufferParam {
  int64_t buffer = 0;
};
struct I32Param {
  int64_t value = 0;
};
struct F32Param {
  double value = 0;
};
/// A TMA tensor map the host encodes (cuTensorMapEncodeTiled) over a
/// buffer: dims and box innermost first, strides in bytes for dims 1...
struct TensorMapParam {
  enum class Element { UInt8 };
  enum class Swizzle { None, B32, B64, B128 };
  int64_t buffer = 0;
  Element element = Element::UInt8;
  SmallVector<int64_t> dims, strides, box;
  Swizzle swizzle = Swizzle::B128;
};
using LaunchParam =
    std::variant<BufferParam, I32Param, F32Param, TensorMapParam>;

/// A kernel of the plan's kernel module, launched with `params`.
struct KernelLaunch {
  std::string kernel;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::array<int64_t, 3> block = {1, 1, 1};
  std::array<int64_t, 3> cluster = {1, 1, 1};
  /// Dynamic shared memory per block.
  int64_t sharedBytes = 0;
  /// The kernel loops over its work (grid-stride), so any grid is correct.
  bool persistent = false;
  SmallVector<LaunchParam> params;
};
/// Sets every byte of a buffer.
struct FillLaunch {
  int64_t buffer = 0;
  int64_t byte = 0;
};
/// Copies the first `bytes` of one buffer into another.
struct CopyLaunch {
  int64_t from = 0, to = 0, bytes = 0;
};
using Launch = std::variant<KernelLaunch, FillLaunch, CopyLaunch>;

/// The plan of one function: launches run in order on one stream.
struct LaunchPlan {
  Chip chip = Chip::SM90a;
  /// The gpu.module (gpu.binary after compilation) holding the kernels.
  std::string kernelModule;
  /// The prepare function whose results the inputs marked `prepared` are
  /// (fp8-prepare-weights' `fp8.prepare`), or empty.
  std::string prepare;
  std::vector<PlanBuffer> buffers;
  std::vector<Launch> launches;
  /// Device memory holding every temporary, at their offsets.
  int64_t workspaceBytes = 0;

  /// The attribute form kept in `fp8.plans`.
  DictionaryAttr toAttr(MLIRContext *context) const;
  /// Reads and verifies the attribute form; errors go to `emitError`.
  static FailureOr<LaunchPlan>
  fromAttr(DictionaryAttr attr, function_ref<InFlightDiagnostic()> emitError);
  /// Checks that buffer ids are their indices, inputs and outputs are
  /// numbered, every launch refers to existing buffers, and temporaries lie
  /// in the workspace, aligned, never sharing a byte while both are live.
  LogicalResult verify(function_ref<InFlightDiagnostic()> emitError) const;
};

/// Calls `fn` with the id of every buffer `launch` names: a fill's buffer,
/// a copy's two, a kernel's buffer and tensor-map parameters.
void forEachLaunchBuffer(const Launch &launch,
                         llvm::function_ref<void(int64_t)> fn);

/// The launches during which a buffer is used, first and last (inclusive).
struct LiveRange {
  size_t first = 0, last = 0;
  bool overlaps(const LiveRange &other) const {
    return first <= other.last && other.first <= last;
  }
};
/// The live range of each buffer, by id: nullopt for a buffer no launch
/// names. Launches run in order on one stream, so a temporary's bytes are
/// free before its first launch and after its last.
SmallVector<std::optional<LiveRange>> getLiveRanges(const LaunchPlan &plan);

/// Whether `buffer` is an input that no launch reads (`ranges` from
/// getLiveRanges): the manifest marks it `unread`, the caller may pass a null
/// pointer, and it is not in the plan's peak memory.
inline bool isUnreadInput(const PlanBuffer &buffer,
                          ArrayRef<std::optional<LiveRange>> ranges) {
  return buffer.kind == PlanBuffer::Kind::Input && !ranges[buffer.id];
}

/// Places the temporaries in the workspace and sets `workspaceBytes`. With
/// `reuse`, temporaries whose live ranges are disjoint may share bytes
/// (greedy, largest first, each at the lowest offset free during its
/// range); without it each has bytes of its own.
void assignWorkspace(LaunchPlan &plan, bool reuse);

llvm::StringRef stringifyBufferKind(PlanBuffer::Kind kind);
llvm::StringRef stringifyBufferLayout(PlanBuffer::Layout layout);
llvm::StringRef stringifyTensorMapElement(TensorMapParam::Element element);
llvm::StringRef stringifySwizzle(TensorMapParam::Swizzle swizzle);

/// The runtime's name of an element type (f32, bf16, f8e4m3, i8, ...).
std::string getManifestDType(Type type);

/// Device memory of a plan, for its manifest's `memory` entry.
struct PlanMemory {
  /// Bytes of the buffers of each kind, by stringifyBufferKind.
  llvm::StringMap<int64_t> bytesByKind;
  /// The bytes of the workspace holding the temporaries.
  int64_t workspaceBytes = 0;
  /// The device memory a run holds: inputs, outputs, constants, state and
  /// the workspace (the runtime allocates the workspace, constants and state
  /// for the program's life; inputs and outputs are the caller's).
  int64_t peakBytes = 0;
  /// Bytes of the inputs that hold optimizer state, by role (the part of
  /// `role` before its '.': weight, m, v), and the parameters: the elements
  /// of the `weight` inputs.
  llvm::StringMap<int64_t> stateBytesByRole;
  int64_t parameters = 0;
};
PlanMemory getPlanMemory(const LaunchPlan &plan);

/// Writes `plan` (of function `name`) as the runtime's JSON manifest.
/// Constant and state values are written by `writeConstant(id, bytes)`,
/// which returns the file name it wrote (or empty on failure). `ptxFile` and
/// `cubinFile` (if any) name the files holding the kernels.
LogicalResult
writeManifest(llvm::raw_ostream &os, llvm::StringRef name,
              const LaunchPlan &plan, llvm::StringRef ptxFile,
              llvm::StringRef cubinFile,
              const std::function<std::string(int64_t, llvm::ArrayRef<char>)>
                  &writeConstant);

} // namespace mlir::fp8

#endif // FP8_CONVERSION_FP8TOGPU_LAUNCHPLAN_H
