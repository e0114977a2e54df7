//===- LaunchPlan.cpp - Launch plans: attribute form and manifests --------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/FP8ToGPU/LaunchPlan.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::fp8;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

StringRef mlir::fp8::stringifyBufferKind(PlanBuffer::Kind kind) {
  switch (kind) {
  case PlanBuffer::Kind::Input:
    return "input";
  case PlanBuffer::Kind::Output:
    return "output";
  case PlanBuffer::Kind::Temp:
    return "temp";
  case PlanBuffer::Kind::Constant:
    return "constant";
  case PlanBuffer::Kind::State:
    return "state";
  }
  llvm_unreachable("unknown buffer kind");
}

StringRef mlir::fp8::stringifyBufferLayout(PlanBuffer::Layout layout) {
  switch (layout) {
  case PlanBuffer::Layout::RowMajor:
    return "row_major";
  case PlanBuffer::Layout::Tcgen05ScaleFactors:
    return "tcgen05_scale_factors";
  }
  llvm_unreachable("unknown buffer layout");
}

StringRef mlir::fp8::stringifyTensorMapElement(TensorMapParam::Element e) {
  switch (e) {
  case TensorMapParam::Element::UInt8:
    return "uint8";
  }
  llvm_unreachable("unknown tensor-map element");
}

StringRef mlir::fp8::stringifySwizzle(TensorMapParam::Swizzle swizzle) {
  switch (swizzle) {
  case TensorMapParam::Swizzle::None:
    return "none";
  case TensorMapParam::Swizzle::B32:
    return "32B";
  case TensorMapParam::Swizzle::B64:
    return "64B";
  case TensorMapParam::Swizzle::B128:
    return "128B";
  }
  llvm_unreachable("unknown swizzle");
}

std::string mlir::fp8::getManifestDType(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isBF16())
    return "bf16";
  if (type.isF16())
    return "f16";
  if (isa<Float8E4M3FNType>(type))
    return "f8e4m3";
  if (isa<Float8E5M2Type>(type))
    return "f8e5m2";
  if (isa<Float8E8M0FNUType>(type))
    return "f8e8m0";
  if (isa<Float4E2M1FNType>(type))
    return "f4e2m1";
  if (auto integer = dyn_cast<IntegerType>(type))
    return "i" + std::to_string(integer.getWidth());
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

//===----------------------------------------------------------------------===//
// The attribute form
//===----------------------------------------------------------------------===//

namespace {

/// Builds the dictionaries of the attribute form.
class AttrWriter {
public:
  explicit AttrWriter(MLIRContext *context) : b(context) {}

  DictionaryAttr plan(const LaunchPlan &plan) {
    SmallVector<Entry> entries{
        {"chip", b.getStringAttr(getChipName(plan.chip))},
        {"kernel_module", b.getStringAttr(plan.kernelModule)},
        {"buffers",
         array(plan.buffers, [&](const PlanBuffer &x) { return buffer(x); })},
        {"launches", array(plan.launches,
                           [&](const Launch &x) {
                             return std::visit(
                                 [&](auto &l) { return launch(l); }, x);
                           })},
        {"workspace_bytes", i64(plan.workspaceBytes)}};
    if (!plan.prepare.empty())
      entries.push_back({"prepare", b.getStringAttr(plan.prepare)});
    return dict(entries);
  }

private:
  using Entry = std::pair<StringRef, Attribute>;

  DictionaryAttr dict(ArrayRef<Entry> entries) {
    SmallVector<NamedAttribute> named;
    for (auto [name, value] : entries)
      named.push_back(b.getNamedAttr(name, value));
    return b.getDictionaryAttr(named);
  }
  template <typename Range, typename Fn>
  ArrayAttr array(const Range &range, Fn fn) {
    return b.getArrayAttr(llvm::map_to_vector(range, fn));
  }
  ArrayAttr ints(ArrayRef<int64_t> values) {
    return array(values, [&](int64_t v) -> Attribute { return i64(v); });
  }
  Attribute i64(int64_t v) { return b.getI64IntegerAttr(v); }
  Attribute str(StringRef s) { return b.getStringAttr(s); }

  Attribute buffer(const PlanBuffer &buffer) {
    SmallVector<Entry> entries{{"id", i64(buffer.id)},
                               {"kind", str(stringifyBufferKind(buffer.kind))},
                               {"type", TypeAttr::get(buffer.type)},
                               {"bytes", i64(buffer.bytes)}};
    if (buffer.index)
      entries.push_back({"index", i64(*buffer.index)});
    if (buffer.pitch)
      entries.push_back({"pitch", i64(*buffer.pitch)});
    if (buffer.offset)
      entries.push_back({"offset", i64(*buffer.offset)});
    if (buffer.layout != PlanBuffer::Layout::RowMajor)
      entries.push_back({"layout", str(stringifyBufferLayout(buffer.layout))});
    if (!buffer.name.empty())
      entries.push_back({"name", str(buffer.name)});
    if (!buffer.role.empty())
      entries.push_back({"role", str(buffer.role)});
    if (buffer.prepared)
      entries.push_back({"prepared", i64(*buffer.prepared)});
    if (buffer.value)
      entries.push_back({"value", buffer.value});
    return dict(entries);
  }

  Attribute param(const LaunchParam &param) {
    if (auto *p = std::get_if<BufferParam>(&param))
      return dict({{"kind", str("buffer")}, {"buffer", i64(p->buffer)}});
    if (auto *p = std::get_if<I32Param>(&param))
      return dict({{"kind", str("i32")}, {"value", i64(p->value)}});
    if (auto *p = std::get_if<F32Param>(&param))
      return dict(
          {{"kind", str("f32")}, {"value", b.getF64FloatAttr(p->value)}});
    const auto &map = std::get<TensorMapParam>(param);
    return dict({{"kind", str("tensor_map")},
                 {"buffer", i64(map.buffer)},
                 {"dtype", str(stringifyTensorMapElement(map.element))},
                 {"dims", ints(map.dims)},
                 {"strides", ints(map.strides)},
                 {"box", ints(map.box)},
                 {"swizzle", str(stringifySwizzle(map.swizzle))}});
  }

  Attribute launch(const KernelLaunch &launch) {
    return dict({{"kind", str("kernel")},
                 {"kernel", str(launch.kernel)},
                 {"grid", ints(launch.grid)},
                 {"block", ints(launch.block)},
                 {"cluster", ints(launch.cluster)},
                 {"shared_bytes", i64(launch.sharedBytes)},
                 {"persistent", b.getBoolAttr(launch.persistent)},
                 {"params", array(launch.params, [&](const LaunchParam &p) {
                    return param(p);
                  })}});
  }
  Attribute launch(const FillLaunch &fill) {
    return dict({{"kind", str("fill")},
                 {"buffer", i64(fill.buffer)},
                 {"byte", i64(fill.byte)}});
  }
  Attribute launch(const CopyLaunch &copy) {
    return dict({{"kind", str("copy")},
                 {"from", i64(copy.from)},
                 {"to", i64(copy.to)},
                 {"bytes", i64(copy.bytes)}});
  }

  Builder b;
};

/// Reads the attribute form; the first problem becomes the error, with the
/// path of the entry that has it.
class AttrReader {
public:
  explicit AttrReader(function_ref<InFlightDiagnostic()> emitError)
      : emitError(emitError) {}

  FailureOr<LaunchPlan> plan(DictionaryAttr attr) {
    LaunchPlan plan;
    StringAttr chip = get<StringAttr>(attr, "plan", "chip");
    StringAttr module = get<StringAttr>(attr, "plan", "kernel_module");
    ArrayAttr buffers = get<ArrayAttr>(attr, "plan", "buffers");
    ArrayAttr launches = get<ArrayAttr>(attr, "plan", "launches");
    if (failed(status))
      return failure();
    std::optional<Chip> parsed = parseChip(chip.getValue());
    if (!parsed) {
      fail("plan.chip", describeUnsupportedChip(chip.getValue()));
      return failure();
    }
    plan.chip = *parsed;
    plan.kernelModule = module.getValue().str();
    if (Attribute prepare = attr.get("prepare")) {
      auto name = dyn_cast<StringAttr>(prepare);
      if (!name || name.empty()) {
        fail("plan.prepare", "is not a function name");
        return failure();
      }
      plan.prepare = name.getValue().str();
    }
    plan.workspaceBytes =
        getOptionalInt(attr, "plan", "workspace_bytes").value_or(0);
    for (auto [i, entry] : llvm::enumerate(buffers)) {
      std::string at = llvm::formatv("buffers[{0}]", i);
      auto dictionary = dyn_cast<DictionaryAttr>(entry);
      if (!dictionary) {
        fail(at, "is not a dictionary");
        return failure();
      }
      plan.buffers.push_back(buffer(dictionary, at));
    }
    for (auto [i, entry] : llvm::enumerate(launches)) {
      std::string at = llvm::formatv("launches[{0}]", i);
      auto dictionary = dyn_cast<DictionaryAttr>(entry);
      if (!dictionary) {
        fail(at, "is not a dictionary");
        return failure();
      }
      plan.launches.push_back(launch(dictionary, at));
    }
    if (failed(status))
      return failure();
    return plan;
  }

private:
  /// Reports the first problem; reading goes on, so that callers need not
  /// check every value.
  void fail(const Twine &at, const Twine &message) {
    if (succeeded(status))
      emitError() << "launch plan: " << at << " " << message;
    status = failure();
  }

  template <typename T>
  T get(DictionaryAttr dict, const Twine &at, StringRef key,
        bool optional = false) {
    Attribute value = dict.get(key);
    if (!value) {
      if (!optional)
        fail(at + "." + key, "is missing");
      return T();
    }
    auto typed = dyn_cast<T>(value);
    if (!typed)
      fail(at + "." + key, "has the wrong kind of attribute");
    return typed;
  }
  int64_t getInt(DictionaryAttr dict, const Twine &at, StringRef key) {
    IntegerAttr value = get<IntegerAttr>(dict, at, key);
    return value ? value.getInt() : 0;
  }
  std::optional<int64_t> getOptionalInt(DictionaryAttr dict, const Twine &at,
                                        StringRef key) {
    if (IntegerAttr value = get<IntegerAttr>(dict, at, key, true))
      return value.getInt();
    return std::nullopt;
  }
  SmallVector<int64_t> getInts(DictionaryAttr dict, const Twine &at,
                               StringRef key) {
    SmallVector<int64_t> result;
    if (ArrayAttr array = get<ArrayAttr>(dict, at, key))
      for (Attribute element : array) {
        auto integer = dyn_cast<IntegerAttr>(element);
        if (!integer) {
          fail(at + "." + key, "holds a value that is not an integer");
          break;
        }
        result.push_back(integer.getInt());
      }
    return result;
  }
  std::array<int64_t, 3> getDim3(DictionaryAttr dict, const Twine &at,
                                 StringRef key) {
    SmallVector<int64_t> values = getInts(dict, at, key);
    if (values.size() != 3) {
      fail(at + "." + key, "does not have three extents");
      return {1, 1, 1};
    }
    return {values[0], values[1], values[2]};
  }
  /// The value of `key` among the names `stringify` gives to `values`.
  template <typename Enum, typename Stringify>
  Enum getEnum(DictionaryAttr dict, const Twine &at, StringRef key,
               ArrayRef<Enum> values, Stringify stringify) {
    StringAttr name = get<StringAttr>(dict, at, key);
    if (!name)
      return values.front();
    for (Enum value : values)
      if (stringify(value) == name.getValue())
        return value;
    fail(at + "." + key, "has the unknown value \"" + name.getValue() + "\"");
    return values.front();
  }

  PlanBuffer buffer(DictionaryAttr dict, const std::string &at) {
    using Kind = PlanBuffer::Kind;
    using Layout = PlanBuffer::Layout;
    PlanBuffer buffer;
    buffer.id = getInt(dict, at, "id");
    buffer.kind = getEnum<Kind>(
        dict, at, "kind",
        {Kind::Input, Kind::Output, Kind::Temp, Kind::Constant, Kind::State},
        stringifyBufferKind);
    if (TypeAttr type = get<TypeAttr>(dict, at, "type")) {
      buffer.type = dyn_cast<RankedTensorType>(type.getValue());
      if (!buffer.type || !buffer.type.hasStaticShape())
        fail(at + ".type", "is not a statically shaped tensor type");
    }
    buffer.bytes = getInt(dict, at, "bytes");
    buffer.index = getOptionalInt(dict, at, "index");
    buffer.pitch = getOptionalInt(dict, at, "pitch");
    buffer.offset = getOptionalInt(dict, at, "offset");
    if (dict.get("layout"))
      buffer.layout = getEnum<Layout>(
          dict, at, "layout", {Layout::RowMajor, Layout::Tcgen05ScaleFactors},
          stringifyBufferLayout);
    if (StringAttr name = get<StringAttr>(dict, at, "name", true))
      buffer.name = name.getValue().str();
    if (StringAttr role = get<StringAttr>(dict, at, "role", true))
      buffer.role = role.getValue().str();
    buffer.prepared = getOptionalInt(dict, at, "prepared");
    buffer.value = get<DenseElementsAttr>(dict, at, "value", true);
    return buffer;
  }

  LaunchParam param(DictionaryAttr dict, const std::string &at) {
    StringAttr kind = get<StringAttr>(dict, at, "kind");
    if (!kind)
      return BufferParam();
    if (kind.getValue() == "buffer")
      return BufferParam{getInt(dict, at, "buffer")};
    if (kind.getValue() == "i32")
      return I32Param{getInt(dict, at, "value")};
    if (kind.getValue() == "f32") {
      FloatAttr value = get<FloatAttr>(dict, at, "value");
      return F32Param{value ? value.getValueAsDouble() : 0.0};
    }
    if (kind.getValue() == "tensor_map") {
      using Swizzle = TensorMapParam::Swizzle;
      TensorMapParam map;
      map.buffer = getInt(dict, at, "buffer");
      map.element = getEnum<TensorMapParam::Element>(
          dict, at, "dtype", {TensorMapParam::Element::UInt8},
          stringifyTensorMapElement);
      map.dims = getInts(dict, at, "dims");
      map.strides = getInts(dict, at, "strides");
      map.box = getInts(dict, at, "box");
      map.swizzle = getEnum<Swizzle>(
          dict, at, "swizzle",
          {Swizzle::None, Swizzle::B32, Swizzle::B64, Swizzle::B128},
          stringifySwizzle);
      return map;
    }
    fail(at + ".kind", "is not buffer, i32, f32 or tensor_map");
    return BufferParam();
  }

  Launch launch(DictionaryAttr dict, const std::string &at) {
    StringAttr kind = get<StringAttr>(dict, at, "kind");
    if (!kind)
      return FillLaunch();
    if (kind.getValue() == "fill")
      return FillLaunch{getInt(dict, at, "buffer"), getInt(dict, at, "byte")};
    if (kind.getValue() == "copy")
      return CopyLaunch{getInt(dict, at, "from"), getInt(dict, at, "to"),
                        getInt(dict, at, "bytes")};
    if (kind.getValue() != "kernel") {
      fail(at + ".kind", "is not kernel, fill or copy");
      return FillLaunch();
    }
    KernelLaunch launch;
    if (StringAttr kernel = get<StringAttr>(dict, at, "kernel"))
      launch.kernel = kernel.getValue().str();
    launch.grid = getDim3(dict, at, "grid");
    launch.block = getDim3(dict, at, "block");
    launch.cluster = getDim3(dict, at, "cluster");
    launch.sharedBytes = getInt(dict, at, "shared_bytes");
    if (BoolAttr persistent = get<BoolAttr>(dict, at, "persistent"))
      launch.persistent = persistent.getValue();
    if (ArrayAttr params = get<ArrayAttr>(dict, at, "params"))
      for (auto [i, entry] : llvm::enumerate(params)) {
        std::string paramAt = llvm::formatv("{0}.params[{1}]", at, i);
        auto paramDict = dyn_cast<DictionaryAttr>(entry);
        if (!paramDict) {
          fail(paramAt, "is not a dictionary");
          break;
        }
        launch.params.push_back(param(paramDict, paramAt));
      }
    return launch;
  }

  function_ref<InFlightDiagnostic()> emitError;
  LogicalResult status = success();
};

} // namespace

DictionaryAttr LaunchPlan::toAttr(MLIRContext *context) const {
  return AttrWriter(context).plan(*this);
}

FailureOr<LaunchPlan>
LaunchPlan::fromAttr(DictionaryAttr attr,
                     function_ref<InFlightDiagnostic()> emitError) {
  FailureOr<LaunchPlan> plan = AttrReader(emitError).plan(attr);
  if (failed(plan) || failed(plan->verify(emitError)))
    return failure();
  return plan;
}

LogicalResult
LaunchPlan::verify(function_ref<InFlightDiagnostic()> emitError) const {
  auto fail = [&](const Twine &message) {
    emitError() << "launch plan: " << message;
    return failure();
  };
  auto size = int64_t(buffers.size());
  for (auto [i, buffer] : llvm::enumerate(buffers)) {
    if (buffer.id != int64_t(i))
      return fail(llvm::formatv("buffers[{0}] has id {1}", i, buffer.id));
    bool numbered = buffer.kind == PlanBuffer::Kind::Input ||
                    buffer.kind == PlanBuffer::Kind::Output;
    if (numbered != buffer.index.has_value())
      return fail(llvm::formatv("buffer {0} ({1}) {2} an index", i,
                                stringifyBufferKind(buffer.kind),
                                numbered ? "lacks" : "has"));
    bool valued = buffer.kind == PlanBuffer::Kind::Constant ||
                  buffer.kind == PlanBuffer::Kind::State;
    if (valued != bool(buffer.value))
      return fail(llvm::formatv("buffer {0} ({1}) {2} a value", i,
                                stringifyBufferKind(buffer.kind),
                                valued ? "lacks" : "has"));
    if (buffer.bytes <= 0)
      return fail(llvm::formatv("buffer {0} has {1} bytes", i, buffer.bytes));
    bool temp = buffer.kind == PlanBuffer::Kind::Temp;
    if (temp != buffer.offset.has_value())
      return fail(llvm::formatv("buffer {0} ({1}) {2} an offset", i,
                                stringifyBufferKind(buffer.kind),
                                temp ? "lacks" : "has"));
    if (temp && (*buffer.offset < 0 || *buffer.offset % kWorkspaceAlignment ||
                 *buffer.offset > workspaceBytes - buffer.bytes))
      return fail(llvm::formatv("temp buffer {0} at offset {1} ({2} bytes) is "
                                "not {3}-byte aligned within the workspace of "
                                "{4} bytes",
                                i, *buffer.offset, buffer.bytes,
                                kWorkspaceAlignment, workspaceBytes));
  }
  auto checkBuffer = [&](int64_t id, size_t launch) {
    if (id >= 0 && id < size)
      return success();
    return fail(llvm::formatv("launch {0} refers to buffer {1}, but the plan "
                              "has {2}",
                              launch, id, size));
  };
  for (auto [i, launch] : llvm::enumerate(launches)) {
    LogicalResult result = success();
    forEachLaunchBuffer(launch, [&, i = i](int64_t id) {
      if (succeeded(result))
        result = checkBuffer(id, i);
    });
    if (failed(result))
      return failure();
  }
  // Temporaries live at one launch must not share a byte.
  SmallVector<std::optional<LiveRange>> ranges = getLiveRanges(*this);
  for (const PlanBuffer &a : buffers) {
    if (a.kind != PlanBuffer::Kind::Temp || !ranges[a.id])
      continue;
    for (const PlanBuffer &b : ArrayRef(buffers).drop_front(a.id + 1)) {
      if (b.kind != PlanBuffer::Kind::Temp || !ranges[b.id] ||
          !ranges[a.id]->overlaps(*ranges[b.id]))
        continue;
      if (*a.offset < *b.offset + b.bytes && *b.offset < *a.offset + a.bytes)
        return fail(llvm::formatv(
            "temp buffers {0} and {1} share workspace bytes while both are "
            "live at launch {2}",
            a.id, b.id, std::max(ranges[a.id]->first, ranges[b.id]->first)));
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The manifest
//===----------------------------------------------------------------------===//

namespace {

/// The bytes of a constant as the GPU stores them: elements narrower than a
/// byte packed two per byte, low nibble first.
std::vector<char> getConstantBytes(DenseElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t bits = type.getElementTypeBitWidth();
  int64_t count = type.getNumElements();
  ArrayRef<char> raw = value.getRawData();
  int64_t storedBytes = (bits + 7) / 8;
  auto element = [&](int64_t i) {
    return value.isSplat() ? raw.data() : raw.data() + i * storedBytes;
  };
  std::vector<char> bytes;
  if (bits >= 8) {
    bytes.reserve(count * storedBytes);
    for (int64_t i = 0; i < count; ++i)
      bytes.insert(bytes.end(), element(i), element(i) + storedBytes);
    return bytes;
  }
  bytes.assign((count * bits + 7) / 8, 0);
  for (int64_t i = 0; i < count; ++i) {
    uint8_t code = uint8_t(*element(i)) & ((1 << bits) - 1);
    bytes[i * bits / 8] |= char(code << (i * bits % 8));
  }
  return bytes;
}

llvm::json::Value toJson(const LaunchParam &param) {
  if (auto *p = std::get_if<BufferParam>(&param))
    return llvm::json::Object{{"kind", "buffer"}, {"buffer", p->buffer}};
  if (auto *p = std::get_if<I32Param>(&param))
    return llvm::json::Object{{"kind", "i32"}, {"value", p->value}};
  if (auto *p = std::get_if<F32Param>(&param))
    return llvm::json::Object{{"kind", "f32"}, {"value", p->value}};
  const auto &map = std::get<TensorMapParam>(param);
  return llvm::json::Object{{"kind", "tensor_map"},
                            {"buffer", map.buffer},
                            {"dtype", stringifyTensorMapElement(map.element)},
                            {"dims", llvm::json::Array(map.dims)},
                            {"strides", llvm::json::Array(map.strides)},
                            {"box", llvm::json::Array(map.box)},
                            {"swizzle", stringifySwizzle(map.swizzle)}};
}

llvm::json::Value toJson(const KernelLaunch &launch) {
  llvm::json::Array params;
  for (const LaunchParam &param : launch.params)
    params.push_back(toJson(param));
  return llvm::json::Object{{"kind", "kernel"},
                            {"kernel", launch.kernel},
                            {"grid", llvm::json::Array(launch.grid)},
                            {"block", llvm::json::Array(launch.block)},
                            {"cluster", llvm::json::Array(launch.cluster)},
                            {"shared_bytes", launch.sharedBytes},
                            {"persistent", launch.persistent},
                            {"params", std::move(params)}};
}
llvm::json::Value toJson(const FillLaunch &fill) {
  return llvm::json::Object{
      {"kind", "fill"}, {"buffer", fill.buffer}, {"byte", fill.byte}};
}
llvm::json::Value toJson(const CopyLaunch &copy) {
  return llvm::json::Object{{"kind", "copy"},
                            {"from", copy.from},
                            {"to", copy.to},
                            {"bytes", copy.bytes}};
}

} // namespace

PlanMemory mlir::fp8::getPlanMemory(const LaunchPlan &plan) {
  PlanMemory memory;
  using Kind = PlanBuffer::Kind;
  for (Kind kind :
       {Kind::Input, Kind::Output, Kind::Temp, Kind::Constant, Kind::State})
    memory.bytesByKind[stringifyBufferKind(kind)] = 0;
  memory.workspaceBytes = plan.workspaceBytes;
  memory.peakBytes = plan.workspaceBytes;
  SmallVector<std::optional<LiveRange>> ranges = getLiveRanges(plan);
  for (const PlanBuffer &buffer : plan.buffers) {
    memory.bytesByKind[stringifyBufferKind(buffer.kind)] += buffer.bytes;
    // Inputs no launch reads need not be in memory during a run.
    if (buffer.kind != PlanBuffer::Kind::Temp && !isUnreadInput(buffer, ranges))
      memory.peakBytes += buffer.bytes;
    if (buffer.kind != PlanBuffer::Kind::Input || buffer.role.empty())
      continue;
    StringRef role = StringRef(buffer.role).split('.').first;
    memory.stateBytesByRole[role] += buffer.bytes;
    if (buffer.role == "weight" || buffer.role == "weight.values")
      memory.parameters += buffer.type.getNumElements();
  }
  return memory;
}

LogicalResult mlir::fp8::writeManifest(
    llvm::raw_ostream &os, StringRef name, const LaunchPlan &plan,
    StringRef ptxFile, StringRef cubinFile,
    const std::function<std::string(int64_t, ArrayRef<char>)> &writeConstant) {
  llvm::json::Array buffers;
  SmallVector<std::optional<LiveRange>> ranges = getLiveRanges(plan);
  for (const PlanBuffer &buffer : plan.buffers) {
    llvm::json::Object object{
        {"id", buffer.id},
        {"kind", stringifyBufferKind(buffer.kind)},
        {"dtype", getManifestDType(buffer.type.getElementType())},
        {"shape", llvm::json::Array(buffer.type.getShape())},
        {"bytes", buffer.bytes}};
    if (buffer.index)
      object["index"] = *buffer.index;
    if (buffer.pitch)
      object["pitch"] = *buffer.pitch;
    if (buffer.offset)
      object["offset"] = *buffer.offset;
    if (buffer.layout != PlanBuffer::Layout::RowMajor)
      object["layout"] = stringifyBufferLayout(buffer.layout);
    if (!buffer.name.empty())
      object["name"] = buffer.name;
    if (!buffer.role.empty())
      object["role"] = buffer.role;
    if (buffer.prepared)
      object["prepared"] = *buffer.prepared;
    // An argument no launch reads (a weight whose only readers
    // fp8-prepare-weights moved out): the caller may pass a null pointer.
    if (isUnreadInput(buffer, ranges))
      object["unread"] = true;
    if (buffer.value) {
      std::string file =
          writeConstant(buffer.id, getConstantBytes(buffer.value));
      if (file.empty())
        return failure();
      object["file"] = file;
    }
    buffers.push_back(std::move(object));
  }
  llvm::json::Array launches;
  for (const Launch &launch : plan.launches)
    launches.push_back(std::visit([](auto &l) { return toJson(l); }, launch));
  PlanMemory memory = getPlanMemory(plan);
  llvm::json::Object bytesByKind;
  for (const auto &entry : memory.bytesByKind)
    bytesByKind[entry.getKey()] = entry.getValue();
  llvm::json::Object memoryObject{{"peak_bytes", memory.peakBytes},
                                  {"workspace_bytes", memory.workspaceBytes},
                                  {"bytes", std::move(bytesByKind)}};
  if (!memory.stateBytesByRole.empty()) {
    llvm::json::Object state;
    for (const auto &entry : memory.stateBytesByRole)
      state[entry.getKey()] = entry.getValue();
    memoryObject["optimizer_state_bytes"] = std::move(state);
    memoryObject["parameters"] = memory.parameters;
  }
  llvm::json::Object modules{{"ptx", ptxFile}};
  if (!cubinFile.empty())
    modules["cubin"] = cubinFile;
  llvm::json::Object manifest{{"format", "fp8-mlir-launch-plan"},
                              {"version", 1},
                              {"function", name},
                              {"chip", getChipName(plan.chip)},
                              {"modules", std::move(modules)},
                              {"memory", std::move(memoryObject)},
                              {"workspace_bytes", plan.workspaceBytes},
                              {"buffers", std::move(buffers)},
                              {"launches", std::move(launches)}};
  if (!plan.prepare.empty())
    manifest["prepare"] = plan.prepare;
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)));
  return success();
}
