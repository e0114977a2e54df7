//===- Manifest.cpp - Launch manifests of fp8-mlir ------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Manifest.h"
#include "fp8rt/Json.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <new>
#include <queue>
#include <sstream>

namespace fp8rt {

using json::Value;

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

const ChipInfo *findChip(std::string_view name) {
  return findByName(kChips, name);
}

std::string formatLocation(Location location) {
  return "line " + std::to_string(location.line) + ", column " +
         std::to_string(location.column);
}

const char *getBufferKindName(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return "input";
  case BufferKind::Output:
    return "output";
  case BufferKind::Temp:
    return "temp";
  case BufferKind::Constant:
    return "constant";
  case BufferKind::State:
    return "state";
  }
  return "?";
}

const char *getSwizzleName(Swizzle swizzle) {
  switch (swizzle) {
  case Swizzle::None:
    return "none";
  case Swizzle::B32:
    return "32B";
  case Swizzle::B64:
    return "64B";
  case Swizzle::B128:
    return "128B";
  }
  return "?";
}

const char *getL2PromotionName(L2Promotion promotion) {
  switch (promotion) {
  case L2Promotion::None:
    return "none";
  case L2Promotion::B64:
    return "64B";
  case L2Promotion::B128:
    return "128B";
  case L2Promotion::B256:
    return "256B";
  }
  return "?";
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

namespace {

template <typename T>
std::string formatList(const std::vector<T> &values) {
  std::string text = "[";
  for (size_t i = 0; i < values.size(); ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

template <typename T, size_t N>
std::string formatList(const std::array<T, N> &values) {
  return formatList(std::vector<T>(values.begin(), values.end()));
}

/// Whether `name` (valid UTF-8, which the JSON reader ensures) has no control
/// character: no C0 or C1 control, no DEL.
bool isPrintable(std::string_view name) {
  for (size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7F)
      return false;
    // U+0080 to U+009F are C2 80 to C2 9F.
    if (c == 0xC2 && i + 1 < name.size() &&
        static_cast<unsigned char>(name[i + 1]) < 0xA0)
      return false;
  }
  return true;
}

/// "a, b, c or d" of the names of a DTypes.h table, then `more`.
template <typename Info, size_t N>
std::string listNames(const Info (&table)[N], const char *more = nullptr) {
  std::string text;
  for (size_t i = 0; i < N; ++i) {
    bool last = i + 1 == N && !more;
    text += std::string(i == 0 ? "" : last ? " or " : ", ") + table[i].name;
  }
  return more ? text + " or " + more : text;
}

//===----------------------------------------------------------------------===//
// Checking the JSON tree
//===----------------------------------------------------------------------===//

/// Reads the JSON tree into a Manifest, stopping at the first problem with a
/// message that says where it is and what would be right.
class Reader {
public:
  Reader(Manifest &manifest, std::string &error)
      : manifest(manifest), error(error) {}

  bool read(const Value &root);

private:
  static Location locate(const Value &value) {
    return {value.getLine(), value.getColumn()};
  }

  bool fail(const Value &at, const std::string &where,
            const std::string &what) {
    error = "line " + std::to_string(at.getLine()) + ", column " +
            std::to_string(at.getColumn()) + ": " +
            (where.empty() ? "" : where + ": ") + what;
    return false;
  }

  /// The member `key` of `object`, which must have kind `kind`; null (with
  /// the error set when `required`) if it is missing or of another kind.
  const Value *get(const Value &object, const std::string &where,
                   const char *key, Value::Kind kind, bool required = true) {
    const Value *member = object.find(key);
    if (!member) {
      if (required)
        fail(object, where,
             std::string("missing member \"") + key + "\" (" +
                 Value::describe(kind) + ")");
      return nullptr;
    }
    if (member->getKind() != kind) {
      fail(*member, where,
           std::string("\"") + key + "\" must be " + Value::describe(kind) +
               ", not " + Value::describe(member->getKind()));
      return nullptr;
    }
    return member;
  }

  /// An integer in [lo, hi].
  bool getInteger(const Value &value, const std::string &where, int64_t lo,
                  int64_t hi, int64_t &out) {
    if (!value.isInteger())
      return fail(value, where,
                  std::string("expected an integer, found ") +
                      (value.isNumber() ? "a number with a fraction, an "
                                          "exponent or beyond 64 bits"
                                        : Value::describe(value.getKind())));
    out = value.getInteger();
    if (out < lo || out > hi)
      return fail(value, where,
                  std::to_string(out) + " is out of range [" +
                      std::to_string(lo) + ", " + std::to_string(hi) + "]");
    return true;
  }

  bool getMemberInteger(const Value &object, const std::string &where,
                        const char *key, int64_t lo, int64_t hi, int64_t &out) {
    const Value *member = get(object, where, key, Value::Kind::Number);
    return member && getInteger(*member, where + "." + key, lo, hi, out);
  }

  /// An array of integers in [lo, hi] with between minSize and maxSize
  /// elements.
  bool getIntegers(const Value &object, const std::string &where,
                   const char *key, size_t minSize, size_t maxSize, int64_t lo,
                   int64_t hi, std::vector<int64_t> &out) {
    const Value *array = get(object, where, key, Value::Kind::Array);
    if (!array)
      return false;
    std::string at = where + "." + key;
    size_t size = array->getElements().size();
    if (size < minSize || size > maxSize)
      return fail(*array, at,
                  "has " + std::to_string(size) + " elements, expected " +
                      (minSize == maxSize ? std::to_string(minSize)
                                          : std::to_string(minSize) + " to " +
                                                std::to_string(maxSize)));
    out.clear();
    for (size_t i = 0; i < size; ++i) {
      int64_t v;
      if (!getInteger(array->getElements()[i],
                      at + "[" + std::to_string(i) + "]", lo, hi, v))
        return false;
      out.push_back(v);
    }
    return true;
  }

  /// A name or file name: printable, and not empty.
  bool checkName(const Value &value, const std::string &where,
                 const char *what) {
    const std::string &name = value.getString();
    if (name.empty())
      return fail(value, where, std::string("the ") + what + " is empty");
    if (!isPrintable(name))
      return fail(value, where,
                  std::string("the ") + what +
                      " contains a control character (a NUL, a newline, "
                      "...); names must be printable");
    return true;
  }

  bool getDim3(const Value &object, const std::string &where, const char *key,
               int64_t hi, std::array<uint32_t, 3> &out) {
    std::vector<int64_t> values;
    if (!getIntegers(object, where, key, 3, 3, 1, hi, values))
      return false;
    for (int i = 0; i < 3; ++i)
      out[i] = static_cast<uint32_t>(values[i]);
    return true;
  }

  bool readModules(const Value &root);
  bool readBuffers(const Value &root);
  bool readLayout(const Value &value, const std::string &where, Buffer &buffer);
  bool readBuffer(const Value &value, const std::string &where, Buffer &buffer);
  bool checkIndices(const Value &root, BufferKind kind,
                    std::vector<int64_t> &ids);
  bool readWorkspace(const Value &root);
  bool readLaunches(const Value &root);
  bool checkWorkspace(const Value &root);
  bool readKernelLaunch(const Value &value, const std::string &where,
                        Launch &launch);
  bool readParam(const Value &value, const std::string &where, Param &param);
  bool readTensorMap(const Value &value, const std::string &where,
                     TensorMap &map);
  bool getBufferId(const Value &object, const std::string &where, int64_t &id,
                   const char *member = "buffer");

  Manifest &manifest;
  std::string &error;
};

bool Reader::read(const Value &root) {
  if (!root.isObject())
    return fail(root, "",
                std::string("the manifest must be a JSON object, "
                            "not ") +
                    Value::describe(root.getKind()));
  const Value *format = get(root, "", "format", Value::Kind::String);
  if (!format)
    return false;
  if (format->getString() != kManifestFormat)
    return fail(*format, "format",
                "\"" + format->getString() + "\" is not \"" + kManifestFormat +
                    "\"; this is not an fp8-mlir launch manifest");
  const Value *version = get(root, "", "version", Value::Kind::Number);
  if (!version)
    return false;
  if (!version->isInteger() || version->getInteger() != kManifestVersion) {
    std::ostringstream os;
    if (version->isInteger())
      os << version->getInteger();
    else
      os << version->getNumber();
    return fail(*version, "version",
                "version " + os.str() +
                    " is not supported; this runtime reads version " +
                    std::to_string(kManifestVersion) +
                    " (rebuild the runtime and fp8-opt from the same "
                    "sources)");
  }
  const Value *function = get(root, "", "function", Value::Kind::String);
  if (!function || !checkName(*function, "function", "function name"))
    return false;
  manifest.function = function->getString();
  if (root.find("prepare")) {
    const Value *prepare = get(root, "", "prepare", Value::Kind::String);
    if (!prepare || !checkName(*prepare, "prepare", "prepare function name"))
      return false;
    manifest.prepare = prepare->getString();
  }
  const Value *chip = get(root, "", "chip", Value::Kind::String);
  if (!chip)
    return false;
  manifest.chip = chip->getString();
  manifest.chipAt = locate(*chip);
  if (!findChip(manifest.chip))
    return fail(*chip, "chip",
                "unknown chip \"" +
                    (isPrintable(manifest.chip)
                         ? manifest.chip
                         : std::string("<unprintable>")) +
                    "\"; manifests are compiled for " + listNames(kChips));
  return readModules(root) && readWorkspace(root) && readBuffers(root) &&
         readLaunches(root) && checkWorkspace(root);
}

bool Reader::readModules(const Value &root) {
  const Value *modules = get(root, "", "modules", Value::Kind::Object);
  if (!modules)
    return false;
  const Value *ptx = get(*modules, "modules", "ptx", Value::Kind::String);
  if (!ptx || !checkName(*ptx, "modules.ptx", "PTX file name"))
    return false;
  manifest.ptxFile = ptx->getString();
  manifest.ptxAt = locate(*ptx);
  if (modules->find("cubin")) {
    const Value *cubin = get(*modules, "modules", "cubin", Value::Kind::String);
    if (!cubin || !checkName(*cubin, "modules.cubin", "cubin file name"))
      return false;
    manifest.cubinFile = cubin->getString();
    manifest.cubinAt = locate(*cubin);
  }
  return true;
}

bool Reader::readBuffer(const Value &value, const std::string &where,
                        Buffer &buffer) {
  if (!value.isObject())
    return fail(value, where,
                std::string("a buffer must be an object, not ") +
                    Value::describe(value.getKind()));
  const Value *kind = get(value, where, "kind", Value::Kind::String);
  if (!kind)
    return false;
  const std::string &k = kind->getString();
  if (k == "input")
    buffer.kind = BufferKind::Input;
  else if (k == "output")
    buffer.kind = BufferKind::Output;
  else if (k == "temp")
    buffer.kind = BufferKind::Temp;
  else if (k == "constant")
    buffer.kind = BufferKind::Constant;
  else if (k == "state")
    buffer.kind = BufferKind::State;
  else
    return fail(*kind, where + ".kind",
                "unknown buffer kind \"" + k +
                    "\"; expected input, output, temp, constant or state");

  const Value *dtype = get(value, where, "dtype", Value::Kind::String);
  if (!dtype)
    return false;
  buffer.dtype = dtype->getString();
  buffer.bitWidth = getElementBits(buffer.dtype);
  if (!buffer.bitWidth)
    return fail(*dtype, where + ".dtype",
                "unknown element type \"" + buffer.dtype + "\"; expected " +
                    listNames(kDTypes, "iN"));
  buffer.type = getDType(buffer.dtype);

  if (!getIntegers(value, where, "shape", 0, 16, 0,
                   std::numeric_limits<int64_t>::max(), buffer.shape))
    return false;
  // Elements and bytes without overflow: at most 2^62 bits.
  uint64_t elements = 1;
  for (int64_t dim : buffer.shape) {
    if (dim != 0 && elements > (uint64_t(1) << 62) / uint64_t(dim))
      return fail(*value.find("shape"), where + ".shape",
                  "shape " + formatShape(buffer.shape) +
                      " has more elements than any device holds");
    elements *= uint64_t(dim);
  }
  if (elements > (uint64_t(1) << 62) / uint64_t(buffer.bitWidth))
    return fail(*value.find("shape"), where + ".shape",
                "shape " + formatShape(buffer.shape) +
                    " has more elements than any device holds");
  if (!readLayout(value, where, buffer))
    return false;
  if (value.find("pitch")) {
    // The rows are those stored: a transposed matrix's are its columns.
    int64_t last = buffer.shape.empty() ? 1
                   : buffer.layout == BufferLayout::Transposed
                       ? buffer.shape[0]
                       : buffer.shape.back();
    if (!getMemberInteger(value, where, "pitch", 1,
                          std::numeric_limits<int32_t>::max(), buffer.pitch))
      return false;
    if (buffer.pitch < last || buffer.pitch * buffer.bitWidth % 8 != 0)
      return fail(*value.find("pitch"), where + ".pitch",
                  "a pitch of " + std::to_string(buffer.pitch) +
                      " elements must hold a row of " + std::to_string(last) +
                      " and start every row on a byte");
    if (last) {
      uint64_t rows = elements / uint64_t(last);
      if (rows > ((uint64_t(1) << 62) / uint64_t(buffer.bitWidth)) /
                     uint64_t(buffer.pitch))
        return fail(*value.find("pitch"), where + ".pitch",
                    "rows of " + std::to_string(buffer.pitch) +
                        " elements make more bytes than any device holds");
      elements = rows * uint64_t(buffer.pitch);
    }
  }
  if (const Value *name = value.find("name")) {
    if (buffer.kind != BufferKind::State || !name->isString())
      return fail(*name, where + ".name",
                  "only state buffers are named, by a string");
    if (!checkName(*name, where + ".name", "state buffer's name"))
      return false;
    buffer.name = name->getString();
  }
  uint64_t expected = (elements * uint64_t(buffer.bitWidth) + 7) / 8;
  int64_t bytes;
  if (!getMemberInteger(value, where, "bytes", 0,
                        std::numeric_limits<int64_t>::max(), bytes))
    return false;
  buffer.bytes = uint64_t(bytes);
  if (buffer.layout == BufferLayout::Tcgen05ScaleFactors) {
    if (buffer.bytes < expected || buffer.bytes % kScaleChunkBytes != 0)
      return fail(*value.find("bytes"), where + ".bytes",
                  std::to_string(bytes) +
                      " bytes, but tcgen05 scale "
                      "factors fill whole chunks of " +
                      std::to_string(kScaleChunkBytes) +
                      " bytes, at least the " + std::to_string(expected) +
                      " of a dense " + formatShape(buffer.shape) + " " +
                      buffer.dtype + " tensor");
  } else if (buffer.bytes != expected) {
    return fail(*value.find("bytes"), where + ".bytes",
                std::to_string(bytes) + " bytes, but a " +
                    formatShape(buffer.shape) + " " + buffer.dtype +
                    " tensor takes " + std::to_string(expected));
  }

  bool hasIndex = value.find("index") != nullptr;
  if (buffer.kind == BufferKind::Input || buffer.kind == BufferKind::Output) {
    if (!getMemberInteger(value, where, "index", 0, 1 << 20, buffer.index))
      return false;
  } else if (hasIndex) {
    return fail(*value.find("index"), where + ".index",
                std::string("a ") + getBufferKindName(buffer.kind) +
                    " buffer has no index (only inputs and outputs do)");
  }

  if (const Value *prepared = value.find("prepared")) {
    if (buffer.kind != BufferKind::Input)
      return fail(*prepared, where + ".prepared",
                  std::string(getBufferKindName(buffer.kind)) +
                      " buffers are not prepared (only inputs are, by a "
                      "prepare function)");
    if (!getInteger(*prepared, where + ".prepared", 0, 1 << 20,
                    buffer.prepared))
      return false;
  }

  if (const Value *unread = value.find("unread")) {
    if (buffer.kind != BufferKind::Input || !unread->isBool())
      return fail(*unread, where + ".unread",
                  "only inputs are marked unread, by a boolean");
    buffer.unread = unread->getBool();
  }

  bool hasFile = value.find("file") != nullptr;
  if (buffer.kind == BufferKind::Constant || buffer.kind == BufferKind::State) {
    const Value *file = get(value, where, "file", Value::Kind::String);
    if (!file)
      return false;
    if (!checkName(*file, where + ".file", "file name"))
      return false;
    buffer.file = file->getString();
  } else if (hasFile) {
    return fail(*value.find("file"), where + ".file",
                std::string("a ") + getBufferKindName(buffer.kind) +
                    " buffer has no file (only constants and state do)");
  }

  if (const Value *offset = value.find("offset")) {
    if (buffer.kind != BufferKind::Temp)
      return fail(*offset, where + ".offset",
                  std::string(getBufferKindName(buffer.kind)) +
                      " buffers have no offset (only temps do, in the "
                      "workspace)");
    if (!getInteger(*offset, where + ".offset", 0,
                    std::numeric_limits<int64_t>::max(), buffer.offset))
      return false;
    if (buffer.offset % kWorkspaceAlignment != 0)
      return fail(*offset, where + ".offset",
                  "offset " + std::to_string(buffer.offset) +
                      " is not a multiple of " +
                      std::to_string(kWorkspaceAlignment));
    if (buffer.bytes > manifest.workspaceBytes ||
        uint64_t(buffer.offset) > manifest.workspaceBytes - buffer.bytes)
      return fail(*offset, where + ".offset",
                  std::to_string(buffer.bytes) + " bytes at offset " +
                      std::to_string(buffer.offset) +
                      " do not fit the workspace of " +
                      std::to_string(manifest.workspaceBytes) +
                      " bytes (\"workspace_bytes\")");
  }
  return true;
}

/// The optional "layout" of a buffer: "transposed" for a matrix, or
/// "tcgen05_scale_factors" for 8-bit block scales.
bool Reader::readLayout(const Value &value, const std::string &where,
                        Buffer &buffer) {
  if (!value.find("layout"))
    return true;
  const Value *layout = get(value, where, "layout", Value::Kind::String);
  if (!layout)
    return false;
  const std::string &name = layout->getString();
  if (name == "transposed" && buffer.shape.size() == 2) {
    buffer.layout = BufferLayout::Transposed;
    return true;
  }
  if (name == "tcgen05_scale_factors" && buffer.bitWidth == 8 &&
      !value.find("pitch")) {
    buffer.layout = BufferLayout::Tcgen05ScaleFactors;
    return true;
  }
  return fail(*layout, where + ".layout",
              "unknown layout \"" +
                  (isPrintable(name) ? name : std::string("<unprintable>")) +
                  "\" for a " + formatShape(buffer.shape) + " " + buffer.dtype +
                  " buffer; expected \"transposed\" (matrices) or "
                  "\"tcgen05_scale_factors\" (8-bit scales without a pitch)");
}

bool Reader::readBuffers(const Value &root) {
  const Value *buffers = get(root, "", "buffers", Value::Kind::Array);
  if (!buffers)
    return false;
  size_t count = buffers->getElements().size();
  manifest.buffers.assign(count, Buffer());
  std::vector<bool> seen(count, false);
  for (size_t i = 0; i < count; ++i) {
    const Value &value = buffers->getElements()[i];
    std::string where = "buffers[" + std::to_string(i) + "]";
    int64_t id;
    if (!value.isObject())
      return fail(value, where,
                  std::string("a buffer must be an object, not ") +
                      Value::describe(value.getKind()));
    const Value *idValue = get(value, where, "id", Value::Kind::Number);
    if (!idValue)
      return false;
    if (!idValue->isInteger() || idValue->getInteger() < 0 ||
        idValue->getInteger() >= int64_t(count))
      return fail(*idValue, where + ".id",
                  "buffer id must be an integer in [0, " +
                      std::to_string(count) + ") (the manifest has " +
                      std::to_string(count) + " buffers)");
    id = idValue->getInteger();
    if (seen[id])
      return fail(*idValue, where + ".id",
                  "buffer id " + std::to_string(id) + " appears twice");
    seen[id] = true;
    Buffer &buffer = manifest.buffers[id];
    buffer.id = id;
    if (!readBuffer(value, where, buffer))
      return false;
    // A manifest from before the prepare function was named: its own.
    if (buffer.prepared >= 0 && manifest.prepare.empty())
      manifest.prepare = manifest.function + "_prepare";
  }
  return checkIndices(*buffers, BufferKind::Input, manifest.inputs) &&
         checkIndices(*buffers, BufferKind::Output, manifest.outputs);
}

/// Inputs (or outputs) must have the indices 0, 1, ... each exactly once.
bool Reader::checkIndices(const Value &buffers, BufferKind kind,
                          std::vector<int64_t> &ids) {
  size_t count = 0;
  for (const Buffer &buffer : manifest.buffers)
    count += buffer.kind == kind;
  ids.assign(count, -1);
  for (const Buffer &buffer : manifest.buffers) {
    if (buffer.kind != kind)
      continue;
    if (buffer.index >= int64_t(count))
      return fail(buffers, "buffers",
                  std::string(getBufferKindName(kind)) + " buffer " +
                      std::to_string(buffer.id) + " has index " +
                      std::to_string(buffer.index) + ", but there are " +
                      std::to_string(count) + " " + getBufferKindName(kind) +
                      "s (indices 0 to " + std::to_string(count - 1) + ")");
    if (ids[buffer.index] >= 0)
      return fail(buffers, "buffers",
                  std::string(getBufferKindName(kind)) + " buffers " +
                      std::to_string(ids[buffer.index]) + " and " +
                      std::to_string(buffer.id) + " both have index " +
                      std::to_string(buffer.index));
    ids[buffer.index] = buffer.id;
  }
  return true;
}

bool Reader::getBufferId(const Value &object, const std::string &where,
                         int64_t &id, const char *member) {
  const Value *value = get(object, where, member, Value::Kind::Number);
  if (!value)
    return false;
  int64_t count = int64_t(manifest.buffers.size());
  if (!value->isInteger() || value->getInteger() < 0 ||
      value->getInteger() >= count) {
    std::ostringstream os;
    if (value->isInteger())
      os << value->getInteger();
    else
      os << value->getNumber();
    return fail(*value, where + "." + member,
                "buffer id " + os.str() + " is out of range (the manifest " +
                    "has " + std::to_string(count) + " buffers" +
                    (count ? ", ids 0 to " + std::to_string(count - 1) : "") +
                    ")");
  }
  id = value->getInteger();
  return true;
}

/// The optional "workspace_bytes", read before the buffers that lie in it.
bool Reader::readWorkspace(const Value &root) {
  const Value *member = root.find("workspace_bytes");
  int64_t bytes = 0;
  if (member && !getInteger(*member, "workspace_bytes", 0,
                            std::numeric_limits<int64_t>::max(), bytes))
    return false;
  manifest.workspaceBytes = uint64_t(bytes);
  return true;
}

/// Temporaries in the workspace must not share bytes while both are live:
/// from the first launch that names one to the last.
bool Reader::checkWorkspace(const Value &root) {
  size_t count = manifest.buffers.size();
  std::vector<size_t> first(count, SIZE_MAX), last(count, 0);
  auto use = [&](int64_t id, size_t launch) {
    first[id] = std::min(first[id], launch);
    last[id] = launch;
  };
  for (size_t i = 0; i < manifest.launches.size(); ++i) {
    const Launch &launch = manifest.launches[i];
    if (launch.kind == LaunchKind::Fill)
      use(launch.buffer, i);
    if (launch.kind == LaunchKind::Copy) {
      use(launch.from, i);
      use(launch.to, i);
    }
    for (const Param &param : launch.params) {
      if (param.kind == ParamKind::Buffer)
        use(param.buffer, i);
      if (param.kind == ParamKind::TensorMap)
        use(param.map.buffer, i);
    }
  }
  // A sweep over the launches: buffers in the order they become live; the
  // live ones, which share no bytes, by offset. A buffer can only meet the
  // live one that starts last before its end.
  std::vector<const Buffer *> placed;
  for (const Buffer &buffer : manifest.buffers)
    if (buffer.offset >= 0 && buffer.bytes && first[buffer.id] != SIZE_MAX)
      placed.push_back(&buffer);
  std::stable_sort(placed.begin(), placed.end(),
                   [&](const Buffer *a, const Buffer *b) {
                     return first[a->id] < first[b->id];
                   });
  std::map<uint64_t, const Buffer *> live; // by offset
  using Ending = std::pair<size_t, const Buffer *>;
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> endings;
  for (const Buffer *b : placed) {
    size_t now = first[b->id];
    while (!endings.empty() && endings.top().first < now) {
      live.erase(uint64_t(endings.top().second->offset));
      endings.pop();
    }
    uint64_t end = uint64_t(b->offset) + b->bytes;
    auto after = live.lower_bound(end);
    if (after != live.begin()) {
      const Buffer *a = std::prev(after)->second;
      if (uint64_t(a->offset) + a->bytes > uint64_t(b->offset)) {
        const Buffer *low =
            std::pair(a->offset, a->id) < std::pair(b->offset, b->id) ? a : b;
        const Buffer *high = low == a ? b : a;
        return fail(root.find("launches")->getElements()[now],
                    manifest.launches[now].where,
                    "temps " + std::to_string(low->id) + " and " +
                        std::to_string(high->id) +
                        " share workspace bytes from offset " +
                        std::to_string(high->offset) +
                        " and are both live here (a temp is live from the "
                        "first launch naming it to the last)");
      }
    }
    live[uint64_t(b->offset)] = b;
    endings.push({last[b->id], b});
  }
  return true;
}

bool Reader::readLaunches(const Value &root) {
  const Value *launches = get(root, "", "launches", Value::Kind::Array);
  if (!launches)
    return false;
  for (size_t i = 0; i < launches->getElements().size(); ++i) {
    const Value &value = launches->getElements()[i];
    std::string where = "launches[" + std::to_string(i) + "]";
    if (!value.isObject())
      return fail(value, where,
                  std::string("a launch must be an object, not ") +
                      Value::describe(value.getKind()));
    const Value *kind = get(value, where, "kind", Value::Kind::String);
    if (!kind)
      return false;
    Launch launch;
    launch.where = where;
    if (kind->getString() == "kernel") {
      launch.kind = LaunchKind::Kernel;
      if (!readKernelLaunch(value, where, launch))
        return false;
    } else if (kind->getString() == "fill") {
      launch.kind = LaunchKind::Fill;
      int64_t byte;
      if (!getBufferId(value, where, launch.buffer) ||
          !getMemberInteger(value, where, "byte", 0, 255, byte))
        return false;
      launch.byte = uint8_t(byte);
      if (manifest.buffers[launch.buffer].kind == BufferKind::Input ||
          manifest.buffers[launch.buffer].kind == BufferKind::Constant)
        return fail(
            *value.find("buffer"), where + ".buffer",
            std::string("a fill must not overwrite ") +
                getBufferKindName(manifest.buffers[launch.buffer].kind) +
                " buffer " + std::to_string(launch.buffer));
    } else if (kind->getString() == "copy") {
      launch.kind = LaunchKind::Copy;
      int64_t bytes;
      if (!getBufferId(value, where, launch.from, "from") ||
          !getBufferId(value, where, launch.to, "to") ||
          !getMemberInteger(value, where, "bytes", 0,
                            std::numeric_limits<int64_t>::max(), bytes))
        return false;
      launch.bytes = uint64_t(bytes);
      const Buffer &from = manifest.buffers[launch.from];
      const Buffer &to = manifest.buffers[launch.to];
      if (launch.from == launch.to)
        return fail(*value.find("to"), where + ".to",
                    "a copy from buffer " + std::to_string(launch.from) +
                        " to itself");
      if (launch.bytes > from.bytes || launch.bytes > to.bytes)
        return fail(*value.find("bytes"), where + ".bytes",
                    "a copy of " + std::to_string(bytes) +
                        " bytes does not fit buffers " +
                        std::to_string(launch.from) + " (" +
                        std::to_string(from.bytes) + " bytes) and " +
                        std::to_string(launch.to) + " (" +
                        std::to_string(to.bytes) + " bytes)");
      if (to.kind == BufferKind::Input || to.kind == BufferKind::Constant)
        return fail(*value.find("to"), where + ".to",
                    std::string("a copy must not overwrite ") +
                        getBufferKindName(to.kind) + " buffer " +
                        std::to_string(launch.to));
    } else {
      return fail(*kind, where + ".kind",
                  "unknown launch kind \"" + kind->getString() +
                      "\"; expected kernel, fill or copy");
    }
    manifest.launches.push_back(std::move(launch));
  }
  return true;
}

bool Reader::readKernelLaunch(const Value &value, const std::string &where,
                              Launch &launch) {
  const Value *kernel = get(value, where, "kernel", Value::Kind::String);
  if (!kernel || !checkName(*kernel, where + ".kernel", "kernel name"))
    return false;
  launch.kernel = kernel->getString();
  launch.kernelAt = locate(*kernel);
  std::string at = where + " (" + launch.kernel + ")";
  launch.where = at;
  // Limits of CUDA launches (compute capability 9.0 and 10.0).
  if (!getDim3(value, at, "grid", (int64_t(1) << 31) - 1, launch.grid) ||
      !getDim3(value, at, "block", 1024, launch.block) ||
      !getDim3(value, at, "cluster", 16, launch.cluster))
    return false;
  if (launch.grid[1] > 65535 || launch.grid[2] > 65535)
    return fail(*value.find("grid"), at + ".grid",
                "grid " + formatList(launch.grid) +
                    ": y and z must be at most 65535");
  uint64_t threads =
      uint64_t(launch.block[0]) * launch.block[1] * launch.block[2];
  if (threads > 1024 || launch.block[2] > 64)
    return fail(*value.find("block"), at + ".block",
                "block " + formatList(launch.block) +
                    " has more than 1024 threads or z > 64");
  uint64_t clusterSize =
      uint64_t(launch.cluster[0]) * launch.cluster[1] * launch.cluster[2];
  if (clusterSize > 16)
    return fail(*value.find("cluster"), at + ".cluster",
                "cluster " + formatList(launch.cluster) +
                    " has more than 16 blocks");
  for (int i = 0; i < 3; ++i)
    if (launch.grid[i] % launch.cluster[i] != 0)
      return fail(*value.find("grid"), at + ".grid",
                  "grid " + formatList(launch.grid) +
                      " is not a multiple of cluster " +
                      formatList(launch.cluster));
  launch.blockAt = locate(*value.find("block"));
  int64_t shared;
  if (!getMemberInteger(value, at, "shared_bytes", 0,
                        std::numeric_limits<int32_t>::max(), shared))
    return false;
  launch.sharedBytes = uint32_t(shared);
  const ChipInfo &chip = *findChip(manifest.chip);
  if (launch.sharedBytes > chip.maxSharedBytes)
    return fail(*value.find("shared_bytes"), at + ".shared_bytes",
                std::to_string(shared) +
                    " bytes of dynamic shared memory, but a block on " +
                    chip.name + " has at most " +
                    std::to_string(chip.maxSharedBytes) + " (" +
                    std::to_string(chip.maxSharedBytes / 1024) + " KiB)");
  if (const Value *persistent =
          get(value, at, "persistent", Value::Kind::Bool, /*required=*/false))
    launch.persistent = persistent->getBool();
  else if (value.find("persistent"))
    return false;

  const Value *params = get(value, at, "params", Value::Kind::Array);
  if (!params)
    return false;
  launch.paramsAt = locate(*params);
  for (size_t i = 0; i < params->getElements().size(); ++i) {
    Param param;
    param.at = locate(params->getElements()[i]);
    if (!readParam(params->getElements()[i],
                   at + ".params[" + std::to_string(i) + "]", param))
      return false;
    launch.params.push_back(std::move(param));
  }
  return true;
}

bool Reader::readParam(const Value &value, const std::string &where,
                       Param &param) {
  if (!value.isObject())
    return fail(value, where,
                std::string("a parameter must be an object, not ") +
                    Value::describe(value.getKind()));
  const Value *kind = get(value, where, "kind", Value::Kind::String);
  if (!kind)
    return false;
  const std::string &k = kind->getString();
  if (k == "buffer") {
    param.kind = ParamKind::Buffer;
    if (!getBufferId(value, where, param.buffer))
      return false;
    param.bufferAt = locate(*value.find("buffer"));
    return true;
  }
  if (k == "i32") {
    param.kind = ParamKind::I32;
    int64_t v;
    if (!getMemberInteger(value, where, "value",
                          std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max(), v))
      return false;
    param.i32 = int32_t(v);
    return true;
  }
  if (k == "f32") {
    param.kind = ParamKind::F32;
    const Value *v = get(value, where, "value", Value::Kind::Number);
    if (!v)
      return false;
    double d = v->getNumber();
    if (d > std::numeric_limits<float>::max() ||
        d < -std::numeric_limits<float>::max())
      return fail(*v, where + ".value", "value is out of the range of an f32");
    param.f32 = float(d);
    return true;
  }
  if (k == "tensor_map") {
    param.kind = ParamKind::TensorMap;
    if (!readTensorMap(value, where, param.map))
      return false;
    param.bufferAt = locate(*value.find("buffer"));
    return true;
  }
  return fail(*kind, where + ".kind",
              "unknown parameter kind \"" + k +
                  "\"; expected buffer, i32, f32 or tensor_map");
}

bool Reader::readTensorMap(const Value &value, const std::string &where,
                           TensorMap &map) {
  if (!getBufferId(value, where, map.buffer))
    return false;
  const Value *dtype = get(value, where, "dtype", Value::Kind::String);
  if (!dtype)
    return false;
  map.dtype = dtype->getString();
  const TensorMapDTypeInfo *mapType = findTensorMapDType(map.dtype);
  if (!mapType)
    return fail(*dtype, where + ".dtype",
                "unknown tensor-map data type \"" + map.dtype +
                    "\"; expected " + listNames(kTensorMapDTypes));
  map.type = mapType->type;
  map.elementBytes = mapType->bytes;

  // cuTensorMapEncodeTiled: rank 1 to 5, dims up to 2^32, strides multiples
  // of 16 below 2^40, boxes of 1 to 256 elements.
  std::vector<int64_t> dims, strides, box;
  if (!getIntegers(value, where, "dims", 1, 5, 1, int64_t(1) << 32, dims))
    return false;
  size_t rank = dims.size();
  if (!getIntegers(value, where, "strides", rank - 1, rank - 1, 16,
                   (int64_t(1) << 40) - 1, strides) ||
      !getIntegers(value, where, "box", rank, rank, 1, 256, box))
    return false;
  for (size_t i = 0; i < strides.size(); ++i)
    if (strides[i] % 16 != 0)
      return fail(*value.find("strides"), where + ".strides",
                  "stride " + std::to_string(strides[i]) +
                      " is not a multiple of 16 bytes (TMA needs 16-byte "
                      "aligned rows)");
  if ((box[0] * map.elementBytes) % 16 != 0)
    return fail(*value.find("box"), where + ".box",
                "the innermost box extent (" +
                    std::to_string(box[0] * map.elementBytes) +
                    " bytes) is not a multiple of 16 bytes");

  const Value *swizzle = get(value, where, "swizzle", Value::Kind::String);
  if (!swizzle)
    return false;
  const std::string &s = swizzle->getString();
  int span = 0;
  if (s == "none")
    map.swizzle = Swizzle::None;
  else if (s == "32B")
    map.swizzle = Swizzle::B32, span = 32;
  else if (s == "64B")
    map.swizzle = Swizzle::B64, span = 64;
  else if (s == "128B")
    map.swizzle = Swizzle::B128, span = 128;
  else
    return fail(*swizzle, where + ".swizzle",
                "unknown swizzle \"" + s +
                    "\"; expected none, 32B, 64B or 128B");
  if (span && box[0] * map.elementBytes > span)
    return fail(*value.find("box"), where + ".box",
                "the innermost box extent (" +
                    std::to_string(box[0] * map.elementBytes) +
                    " bytes) exceeds the " + s + " swizzle span");

  if (value.find("l2_promotion")) {
    const Value *l2 = get(value, where, "l2_promotion", Value::Kind::String);
    if (!l2)
      return false;
    const std::string &p = l2->getString();
    if (p == "none")
      map.l2Promotion = L2Promotion::None;
    else if (p == "64B")
      map.l2Promotion = L2Promotion::B64;
    else if (p == "128B")
      map.l2Promotion = L2Promotion::B128;
    else if (p == "256B")
      map.l2Promotion = L2Promotion::B256;
    else
      return fail(*l2, where + ".l2_promotion",
                  "unknown L2 promotion \"" + p +
                      "\"; expected none, 64B, 128B or 256B");
  }

  // The map must stay inside its buffer: the last element it can address
  // ends at elementBytes * dims[0] + sum (dims[i] - 1) * strides[i - 1].
  unsigned __int128 extent = (unsigned __int128)dims[0] * map.elementBytes;
  for (size_t i = 1; i < rank; ++i)
    extent += (unsigned __int128)(dims[i] - 1) * strides[i - 1];
  const Buffer &buffer = manifest.buffers[map.buffer];
  if (extent > buffer.bytes)
    return fail(*value.find("dims"), where + ".dims",
                "the tensor map spans " + std::to_string(uint64_t(extent)) +
                    " bytes, but buffer " + std::to_string(map.buffer) + " (" +
                    buffer.dtype + " " + formatShape(buffer.shape) + ") has " +
                    std::to_string(buffer.bytes));

  map.dims.assign(dims.begin(), dims.end());
  map.strides.assign(strides.begin(), strides.end());
  map.box.assign(box.begin(), box.end());
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

bool parseManifest(std::string_view text, Manifest &manifest,
                   std::string &error) {
  manifest = Manifest();
  Value root;
  if (!json::parse(text, root, error)) {
    error = "malformed JSON: " + error;
    return false;
  }
  Reader reader(manifest, error);
  return reader.read(root);
}

std::string joinPath(const std::string &directory, const std::string &file) {
  if (file.empty() || file[0] == '/' || directory.empty())
    return file;
  if (directory.back() == '/')
    return directory + file;
  return directory + "/" + file;
}

bool readFile(const std::string &path, std::string &contents,
              std::string &error) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    error = "cannot read '" + path + "': it is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read '" + path + "': " + std::strerror(errno);
    return false;
  }
  // Manifests, PTX, cubins and constants are regular files of a bounded
  // size: a device or a FIFO never ends, and a file larger than memory
  // would abort the process.
  if (!std::filesystem::is_regular_file(path, ec)) {
    error = "cannot read '" + path + "': not a regular file";
    return false;
  }
  std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxFileBytes) {
    error = "cannot read '" + path + "': " +
            (ec ? ec.message()
                : std::to_string(size) + " bytes, more than the " +
                      std::to_string(kMaxFileBytes) +
                      " bytes the runtime reads from one file");
    return false;
  }
  try {
    std::string text(size, '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (in.bad() || in.gcount() != static_cast<std::streamsize>(size)) {
      error = "cannot read '" + path + "': read error";
      return false;
    }
    contents = std::move(text);
  } catch (const std::bad_alloc &) {
    error = "cannot read '" + path + "': out of memory for its " +
            std::to_string(size) + " bytes";
    return false;
  }
  return true;
}

bool loadManifest(const std::string &path, Manifest &manifest,
                  std::string &error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string file = path;
  if (fs::is_directory(path, ec)) {
    // A directory of artifacts: its one manifest.
    std::vector<std::string> found;
    fs::directory_iterator it(path, ec), end;
    for (; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".json")
        found.push_back(it->path().string());
    if (ec) {
      error = "cannot list '" + path + "': " + ec.message();
      return false;
    }
    if (found.size() != 1) {
      error = "'" + path + "' holds " + std::to_string(found.size()) +
              " *.json manifests; give the manifest file itself";
      return false;
    }
    file = found.front();
  }
  std::string text;
  if (!readFile(file, text, error))
    return false;
  if (!parseManifest(text, manifest, error)) {
    error = file + ": " + error;
    return false;
  }
  manifest.path = file;
  fs::path parent = fs::path(file).parent_path();
  manifest.directory = parent.empty() ? "." : parent.string();
  return true;
}

bool checkManifestFiles(const Manifest &manifest, std::string &error) {
  namespace fs = std::filesystem;
  auto check = [&](const std::string &name, const char *what,
                   int64_t expectedSize) {
    std::string path = joinPath(manifest.directory, name);
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) {
      error = manifest.path + ": " + what + " '" + path + "' does not exist";
      return false;
    }
    if (expectedSize >= 0) {
      uint64_t size = fs::file_size(path, ec);
      if (ec || size != uint64_t(expectedSize)) {
        error = manifest.path + ": " + what + " '" + path + "' holds " +
                (ec ? std::string("?") : std::to_string(size)) +
                " bytes, expected " + std::to_string(expectedSize);
        return false;
      }
    }
    return true;
  };
  if (!check(manifest.ptxFile, "PTX file", -1))
    return false;
  if (!manifest.cubinFile.empty() &&
      !check(manifest.cubinFile, "cubin file", -1))
    return false;
  for (const Buffer &buffer : manifest.buffers)
    if ((buffer.kind == BufferKind::Constant ||
         buffer.kind == BufferKind::State) &&
        !check(buffer.file,
               (std::string(getBufferKindName(buffer.kind)) +
                " file of buffer " + std::to_string(buffer.id))
                   .c_str(),
               int64_t(buffer.bytes)))
      return false;
  return true;
}

std::string describeManifest(const Manifest &manifest) {
  std::ostringstream os;
  os << "function: " << manifest.function << "\n";
  os << "chip: " << manifest.chip << "\n";
  os << "ptx: " << manifest.ptxFile << "\n";
  os << "cubin: " << (manifest.cubinFile.empty() ? "none" : manifest.cubinFile)
     << "\n";
  os << "workspace: " << manifest.workspaceBytes << " bytes\n";
  auto describeBuffer = [&](const Buffer &b) {
    os << "buffer " << b.id << " " << b.dtype << " " << formatShape(b.shape)
       << " " << b.bytes << " bytes";
    if (b.layout == BufferLayout::Transposed)
      os << " transposed";
    if (b.layout == BufferLayout::Tcgen05ScaleFactors)
      os << " in tcgen05 scale-factor chunks";
    if (b.pitch)
      os << " (rows of " << b.pitch << ")";
    if (!b.name.empty())
      os << " @" << b.name;
    if (b.offset >= 0)
      os << " at workspace offset " << b.offset;
    if (b.prepared >= 0)
      os << ", result " << b.prepared << " of " << manifest.prepare;
    if (b.unread)
      os << ", unread (may be null)";
  };
  os << "inputs: " << manifest.inputs.size() << "\n";
  for (size_t i = 0; i < manifest.inputs.size(); ++i) {
    os << "  input " << i << ": ";
    describeBuffer(manifest.getInput(i));
    os << "\n";
  }
  os << "outputs: " << manifest.outputs.size() << "\n";
  for (size_t i = 0; i < manifest.outputs.size(); ++i) {
    os << "  output " << i << ": ";
    describeBuffer(manifest.getOutput(i));
    os << "\n";
  }
  for (BufferKind kind :
       {BufferKind::Constant, BufferKind::State, BufferKind::Temp}) {
    size_t count = 0;
    for (const Buffer &b : manifest.buffers)
      count += b.kind == kind;
    os << getBufferKindName(kind) << "s: " << count << "\n";
    for (const Buffer &b : manifest.buffers) {
      if (b.kind != kind)
        continue;
      os << "  " << getBufferKindName(kind) << ": ";
      describeBuffer(b);
      if (!b.file.empty())
        os << " from " << b.file;
      os << "\n";
    }
  }
  os << "launches: " << manifest.launches.size() << "\n";
  for (size_t i = 0; i < manifest.launches.size(); ++i) {
    const Launch &l = manifest.launches[i];
    if (l.kind == LaunchKind::Fill) {
      os << "  launch " << i << ": fill buffer " << l.buffer << " with byte "
         << int(l.byte) << "\n";
      continue;
    }
    if (l.kind == LaunchKind::Copy) {
      os << "  launch " << i << ": copy " << l.bytes << " bytes from buffer "
         << l.from << " to buffer " << l.to << "\n";
      continue;
    }
    os << "  launch " << i << ": kernel " << l.kernel << " grid "
       << formatList(l.grid) << " block " << formatList(l.block) << " cluster "
       << formatList(l.cluster) << " shared " << l.sharedBytes << " bytes"
       << (l.persistent ? " persistent" : "") << "\n";
    for (size_t p = 0; p < l.params.size(); ++p) {
      const Param &param = l.params[p];
      os << "    param " << p << ": ";
      switch (param.kind) {
      case ParamKind::Buffer:
        os << "buffer " << param.buffer;
        break;
      case ParamKind::I32:
        os << "i32 " << param.i32;
        break;
      case ParamKind::F32:
        os << "f32 " << param.f32;
        break;
      case ParamKind::TensorMap:
        os << "tensor_map buffer " << param.map.buffer << " " << param.map.dtype
           << " dims " << formatList(param.map.dims) << " strides "
           << formatList(param.map.strides) << " box "
           << formatList(param.map.box) << " swizzle "
           << getSwizzleName(param.map.swizzle);
        break;
      }
      os << "\n";
    }
  }
  return os.str();
}

} // namespace fp8rt
