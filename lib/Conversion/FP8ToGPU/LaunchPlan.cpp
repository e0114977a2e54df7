//===- LaunchPlan.cpp - JSON manifests of launch plans --------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8/Conversion/FP8ToGPU/LaunchPlan.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::fp8;

namespace {

/// The runtime's name of an element type.
std::string dtypeName(Type type) {
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

llvm::json::Array toJson(ArrayAttr array) {
  llvm::json::Array result;
  for (Attribute a : array)
    result.push_back(cast<IntegerAttr>(a).getInt());
  return result;
}

/// The bytes of a constant as the GPU stores them: elements narrower than a
/// byte packed two per byte, low nibble first.
std::vector<char> constantBytes(DenseElementsAttr value) {
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

} // namespace

LogicalResult mlir::fp8::writeManifest(
    llvm::raw_ostream &os, StringRef name, DictionaryAttr plan,
    StringRef ptxFile, StringRef cubinFile,
    const std::function<std::string(int64_t, ArrayRef<char>)> &writeConstant) {
  llvm::json::Array buffers;
  for (Attribute attr : plan.getAs<ArrayAttr>("buffers")) {
    auto buffer = cast<DictionaryAttr>(attr);
    auto type =
        cast<RankedTensorType>(buffer.getAs<TypeAttr>("type").getValue());
    int64_t id = buffer.getAs<IntegerAttr>("id").getInt();
    llvm::json::Object object{
        {"id", id},
        {"kind", buffer.getAs<StringAttr>("kind").getValue()},
        {"dtype", dtypeName(type.getElementType())},
        {"shape", llvm::json::Array(type.getShape())},
        {"bytes", buffer.getAs<IntegerAttr>("bytes").getInt()}};
    if (auto index = buffer.getAs<IntegerAttr>("index"))
      object["index"] = index.getInt();
    if (auto pitch = buffer.getAs<IntegerAttr>("pitch"))
      object["pitch"] = pitch.getInt();
    if (auto layout = buffer.getAs<StringAttr>("layout"))
      object["layout"] = layout.getValue();
    if (auto stateName = buffer.getAs<StringAttr>("name"))
      object["name"] = stateName.getValue();
    if (auto value = buffer.getAs<DenseElementsAttr>("value")) {
      std::vector<char> bytes = constantBytes(value);
      std::string file = writeConstant(id, bytes);
      if (file.empty())
        return failure();
      object["file"] = file;
    }
    buffers.push_back(std::move(object));
  }
  llvm::json::Array launches;
  for (Attribute attr : plan.getAs<ArrayAttr>("launches")) {
    auto launch = cast<DictionaryAttr>(attr);
    StringRef kind = launch.getAs<StringAttr>("kind").getValue();
    llvm::json::Object object{{"kind", kind}};
    if (kind == "copy") {
      object["from"] = launch.getAs<IntegerAttr>("from").getInt();
      object["to"] = launch.getAs<IntegerAttr>("to").getInt();
      object["bytes"] = launch.getAs<IntegerAttr>("bytes").getInt();
      launches.push_back(std::move(object));
      continue;
    }
    if (kind == "fill") {
      object["buffer"] = launch.getAs<IntegerAttr>("buffer").getInt();
      object["byte"] = launch.getAs<IntegerAttr>("byte").getInt();
      launches.push_back(std::move(object));
      continue;
    }
    object["kernel"] = launch.getAs<StringAttr>("kernel").getValue();
    object["grid"] = toJson(launch.getAs<ArrayAttr>("grid"));
    object["block"] = toJson(launch.getAs<ArrayAttr>("block"));
    object["cluster"] = toJson(launch.getAs<ArrayAttr>("cluster"));
    object["shared_bytes"] = launch.getAs<IntegerAttr>("shared_bytes").getInt();
    object["persistent"] = launch.getAs<BoolAttr>("persistent").getValue();
    llvm::json::Array params;
    for (Attribute p : launch.getAs<ArrayAttr>("params")) {
      auto param = cast<DictionaryAttr>(p);
      StringRef pkind = param.getAs<StringAttr>("kind").getValue();
      llvm::json::Object po{{"kind", pkind}};
      if (pkind == "buffer") {
        po["buffer"] = param.getAs<IntegerAttr>("buffer").getInt();
      } else if (pkind == "i32") {
        po["value"] = param.getAs<IntegerAttr>("value").getInt();
      } else if (pkind == "f32") {
        po["value"] =
            param.getAs<FloatAttr>("value").getValue().convertToDouble();
      } else if (pkind == "tensor_map") {
        po["buffer"] = param.getAs<IntegerAttr>("buffer").getInt();
        po["dtype"] = param.getAs<StringAttr>("dtype").getValue();
        po["dims"] = toJson(param.getAs<ArrayAttr>("dims"));
        po["strides"] = toJson(param.getAs<ArrayAttr>("strides"));
        po["box"] = toJson(param.getAs<ArrayAttr>("box"));
        po["swizzle"] = param.getAs<StringAttr>("swizzle").getValue();
      } else {
        return failure();
      }
      params.push_back(std::move(po));
    }
    object["params"] = std::move(params);
    launches.push_back(std::move(object));
  }
  llvm::json::Object modules{{"ptx", ptxFile}};
  if (!cubinFile.empty())
    modules["cubin"] = cubinFile;
  llvm::json::Object manifest{
      {"format", "fp8-mlir-launch-plan"},
      {"version", 1},
      {"function", name},
      {"chip", plan.getAs<StringAttr>("chip").getValue()},
      {"modules", std::move(modules)},
      {"buffers", std::move(buffers)},
      {"launches", std::move(launches)}};
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(manifest)));
  return success();
}
