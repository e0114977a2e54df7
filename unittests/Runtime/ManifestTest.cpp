//===- ManifestTest.cpp - Reading and checking launch manifests -----------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Manifest.h"
#include "gtest/gtest.h"

#include <filesystem>
#include <fstream>

using namespace fp8rt;

namespace {

/// A GEMM manifest as fp8-write-artifacts writes it, plus a constant and a
/// fill.
const char *const kManifest = R"({
  "format": "fp8-mlir-launch-plan",
  "version": 1,
  "function": "gemm",
  "chip": "sm_90a",
  "modules": {"ptx": "fp8_kernels.ptx", "cubin": "fp8_kernels.cubin"},
  "buffers": [
    {"id": 0, "kind": "input", "index": 0, "dtype": "f8e4m3", "shape": [256, 512], "bytes": 131072},
    {"id": 1, "kind": "input", "index": 1, "dtype": "f8e4m3", "shape": [384, 512], "bytes": 196608},
    {"id": 2, "kind": "input", "index": 2, "dtype": "f32", "shape": [1, 1], "bytes": 4},
    {"id": 3, "kind": "constant", "dtype": "f32", "shape": [1, 1], "bytes": 4, "file": "gemm.const3.bin"},
    {"id": 4, "kind": "output", "index": 0, "dtype": "bf16", "shape": [256, 384], "bytes": 196608},
    {"id": 5, "kind": "temp", "dtype": "f4e2m1", "shape": [3, 5], "bytes": 8}
  ],
  "launches": [
    {"kind": "fill", "buffer": 5, "byte": 0},
    {"kind": "kernel", "kernel": "k", "grid": [6, 1, 1], "block": [384, 1, 1],
     "cluster": [2, 1, 1], "shared_bytes": 229488, "persistent": true,
     "params": [
       {"kind": "tensor_map", "buffer": 0, "dtype": "uint8", "dims": [512, 256],
        "strides": [512], "box": [128, 128], "swizzle": "128B"},
       {"kind": "tensor_map", "buffer": 1, "dtype": "uint8", "dims": [512, 384],
        "strides": [512], "box": [128, 128], "swizzle": "128B",
        "l2_promotion": "128B"},
       {"kind": "buffer", "buffer": 4},
       {"kind": "buffer", "buffer": 2},
       {"kind": "buffer", "buffer": 3},
       {"kind": "i32", "value": -7},
       {"kind": "f32", "value": 0.25}
     ]}
  ]
})";

/// kManifest with the first occurrence of `from` replaced by `to`.
std::string edit(const std::string &from, const std::string &to) {
  std::string text = kManifest;
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    text.replace(at, from.size(), to);
  return text;
}

/// The error of a manifest that must be rejected.
std::string errorOf(const std::string &text) {
  Manifest manifest;
  std::string error;
  EXPECT_FALSE(parseManifest(text, manifest, error));
  return error;
}

TEST(ManifestTest, ReadsEverything) {
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(kManifest, m, error)) << error;
  EXPECT_EQ(m.function, "gemm");
  EXPECT_EQ(m.chip, "sm_90a");
  EXPECT_EQ(m.ptxFile, "fp8_kernels.ptx");
  EXPECT_EQ(m.cubinFile, "fp8_kernels.cubin");
  ASSERT_EQ(m.buffers.size(), 6u);
  EXPECT_EQ(m.inputs, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(m.outputs, (std::vector<int64_t>{4}));
  EXPECT_EQ(m.buffers[3].kind, BufferKind::Constant);
  EXPECT_EQ(m.buffers[3].file, "gemm.const3.bin");
  EXPECT_EQ(m.buffers[5].bitWidth, 4);
  EXPECT_EQ(m.getOutput(0).shape, (std::vector<int64_t>{256, 384}));

  ASSERT_EQ(m.launches.size(), 2u);
  EXPECT_EQ(m.launches[0].kind, LaunchKind::Fill);
  EXPECT_EQ(m.launches[0].buffer, 5);
  const Launch &k = m.launches[1];
  EXPECT_EQ(k.kind, LaunchKind::Kernel);
  EXPECT_EQ(k.kernel, "k");
  EXPECT_EQ(k.grid, (std::array<uint32_t, 3>{6, 1, 1}));
  EXPECT_EQ(k.cluster, (std::array<uint32_t, 3>{2, 1, 1}));
  EXPECT_EQ(k.sharedBytes, 229488u);
  EXPECT_TRUE(k.persistent);
  ASSERT_EQ(k.params.size(), 7u);
  const TensorMap &a = k.params[0].map;
  EXPECT_EQ(k.params[0].kind, ParamKind::TensorMap);
  EXPECT_EQ(a.elementBytes, 1);
  EXPECT_EQ(a.dims, (std::vector<uint64_t>{512, 256}));
  EXPECT_EQ(a.strides, (std::vector<uint64_t>{512}));
  EXPECT_EQ(a.box, (std::vector<uint32_t>{128, 128}));
  EXPECT_EQ(a.swizzle, Swizzle::B128);
  EXPECT_EQ(a.l2Promotion, L2Promotion::B256);
  EXPECT_EQ(k.params[1].map.l2Promotion, L2Promotion::B128);
  EXPECT_EQ(k.params[2].buffer, 4);
  EXPECT_EQ(k.params[5].i32, -7);
  EXPECT_EQ(k.params[6].f32, 0.25f);

  std::string summary = describeManifest(m);
  EXPECT_NE(summary.find("input 0: buffer 0 f8e4m3 [256, 512] 131072 bytes"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("launch 0: fill buffer 5 with byte 0"),
            std::string::npos);
}

TEST(ManifestTest, ElementTypes) {
  EXPECT_EQ(getElementBits("f32"), 32);
  EXPECT_EQ(getElementBits("bf16"), 16);
  EXPECT_EQ(getElementBits("f8e8m0"), 8);
  EXPECT_EQ(getElementBits("f4e2m1"), 4);
  EXPECT_EQ(getElementBits("i1"), 1);
  EXPECT_EQ(getElementBits("i64"), 64);
  EXPECT_EQ(getElementBits("i65"), 0);
  EXPECT_EQ(getElementBits("i08"), 0);
  EXPECT_EQ(getElementBits("f64"), 0);
  EXPECT_EQ(getTensorMapElementBytes("uint8"), 1);
  EXPECT_EQ(getTensorMapElementBytes("bfloat16"), 2);
  EXPECT_EQ(getTensorMapElementBytes("int8"), 0);
}

TEST(ManifestTest, FormatAndVersion) {
  EXPECT_EQ(errorOf("[]"),
            "line 1, column 1: the manifest must be a JSON object, not an "
            "array");
  EXPECT_EQ(errorOf("{\"format\": \"x\"}"),
            "line 1, column 12: format: \"x\" is not "
            "\"fp8-mlir-launch-plan\"; this is not an fp8-mlir launch "
            "manifest");
  EXPECT_EQ(errorOf(edit("\"version\": 1", "\"version\": 2")),
            "line 3, column 14: version: version 2 is not supported; this "
            "runtime reads version 1 (rebuild the runtime and fp8-opt from "
            "the same sources)");
  EXPECT_EQ(errorOf(edit("\"version\": 1,", "")),
            "line 1, column 1: missing member \"version\" (a number)");
  EXPECT_EQ(errorOf("{\"format\": \"fp8-mlir-launch-plan\", \"version\": 1"),
            "malformed JSON: line 1, column 48: expected ',' or '}' in an "
            "object, found the end of the input");
}

TEST(ManifestTest, Buffers) {
  EXPECT_NE(errorOf(edit("\"id\": 1,", "\"id\": 9,"))
                .find("buffers[1].id: buffer id must be an integer in [0, 6) "
                      "(the manifest has 6 buffers)"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"id\": 1,", "\"id\": 0,"))
                .find("buffers[1].id: buffer id 0 appears twice"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"bytes\": 196608}", "\"bytes\": 100}"))
                .find("buffers[1].bytes: 100 bytes, but a [384, 512] f8e4m3 "
                      "tensor takes 196608"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"bytes\": 8}", "\"bytes\": 15}"))
                .find("a [3, 5] f4e2m1 tensor takes 8"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"kind\": \"temp\"", "\"kind\": \"scratch\""))
                .find("unknown buffer kind \"scratch\"; expected input, "
                      "output, temp, constant or state"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"dtype\": \"f32\"", "\"dtype\": \"f64\""))
                .find("unknown element type \"f64\""),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"index\": 1,", "\"index\": 0,"))
                .find("input buffers 0 and 1 both have index 0"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"index\": 2,", "\"index\": 3,"))
                .find("input buffer 2 has index 3, but there are 3 inputs "
                      "(indices 0 to 2)"),
            std::string::npos);
  EXPECT_NE(errorOf(edit(", \"file\": \"gemm.const3.bin\"", ""))
                .find("buffers[3]: missing member \"file\" (a string)"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"shape\": [1, 1]", "\"shape\": [1, -1]"))
                .find("buffers[2].shape[1]: -1 is out of range"),
            std::string::npos);
}

TEST(ManifestTest, Launches) {
  EXPECT_NE(errorOf(edit("\"kind\": \"fill\"", "\"kind\": \"memcpy\""))
                .find("launches[0].kind: unknown launch kind \"memcpy\"; "
                      "expected kernel, fill or copy"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"kind\": \"fill\", \"buffer\": 5",
                         "\"kind\": \"fill\", \"buffer\": 0"))
                .find("a fill must not overwrite input buffer 0"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("{\"kind\": \"buffer\", \"buffer\": 4}",
                         "{\"kind\": \"buffer\", \"buffer\": 7}"))
                .find("launches[1] (k).params[2].buffer: buffer id 7 is out "
                      "of range (the manifest has 6 buffers, ids 0 to 5)"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("{\"kind\": \"i32\"", "{\"kind\": \"i64\""))
                .find("unknown parameter kind \"i64\"; expected buffer, i32, "
                      "f32 or tensor_map"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"value\": -7", "\"value\": 4294967296"))
                .find("params[5].value: 4294967296 is out of range"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"grid\": [6, 1, 1]", "\"grid\": [5, 1, 1]"))
                .find("grid [5, 1, 1] is not a multiple of cluster [2, 1, 1]"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"block\": [384, 1, 1]", "\"block\": [384, 4, 1]"))
                .find("has more than 1024 threads"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"block\": [384, 1, 1]", "\"block\": [384, 1]"))
                .find("launches[1] (k).block: has 2 elements, expected 3"),
            std::string::npos);
}

TEST(ManifestTest, CopiesStateAndPitch) {
  // A state buffer (named, from a file) and copies in and out of it.
  std::string text = edit("{\"id\": 3, \"kind\": \"constant\"",
                          "{\"id\": 3, \"kind\": \"state\", \"name\": \"g\"");
  text.replace(
      text.find("{\"kind\": \"fill\", \"buffer\": 5, \"byte\": 0}"),
      std::string("{\"kind\": \"fill\", \"buffer\": 5, \"byte\": 0}").size(),
      "{\"kind\": \"copy\", \"from\": 2, \"to\": 3, \"bytes\": 4}");
  Manifest m;
  std::string error;
  ASSERT_TRUE(parseManifest(text, m, error)) << error;
  EXPECT_EQ(m.buffers[3].kind, BufferKind::State);
  EXPECT_EQ(m.buffers[3].name, "g");
  EXPECT_EQ(m.buffers[3].file, "gemm.const3.bin");
  ASSERT_EQ(m.launches[0].kind, LaunchKind::Copy);
  EXPECT_EQ(m.launches[0].from, 2);
  EXPECT_EQ(m.launches[0].to, 3);
  EXPECT_EQ(m.launches[0].bytes, 4u);

  auto withCopy = [&](const std::string &copy) {
    std::string t = kManifest;
    std::string fill = "{\"kind\": \"fill\", \"buffer\": 5, \"byte\": 0}";
    t.replace(t.find(fill), fill.size(), copy);
    return t;
  };
  EXPECT_NE(errorOf(withCopy("{\"kind\": \"copy\", \"from\": 2, \"to\": 4, "
                             "\"bytes\": 8}"))
                .find("a copy of 8 bytes does not fit buffers 2 (4 bytes) and "
                      "4 (196608 bytes)"),
            std::string::npos);
  EXPECT_NE(errorOf(withCopy("{\"kind\": \"copy\", \"from\": 2, \"to\": 3, "
                             "\"bytes\": 4}"))
                .find("a copy must not overwrite constant buffer 3"),
            std::string::npos);
  EXPECT_NE(errorOf(withCopy("{\"kind\": \"copy\", \"from\": 9, \"to\": 3, "
                             "\"bytes\": 4}"))
                .find("launches[0].from: buffer id 9 is out of range"),
            std::string::npos);

  // Rows padded to 16 bytes: bytes follow the pitch.
  Manifest padded;
  ASSERT_TRUE(parseManifest(
      edit("\"shape\": [256, 512], \"bytes\": 131072",
           "\"shape\": [256, 500], \"pitch\": 512, \"bytes\": 131072"),
      padded, error))
      << error;
  EXPECT_EQ(padded.buffers[0].pitch, 512);
  EXPECT_NE(errorOf(edit("\"shape\": [256, 512], \"bytes\": 131072",
                         "\"shape\": [256, 512], \"pitch\": 500, "
                         "\"bytes\": 131072"))
                .find("a pitch of 500 elements must hold a row of 512"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"kind\": \"temp\", \"dtype\"",
                         "\"kind\": \"temp\", \"name\": \"x\", \"dtype\""))
                .find("only state buffers are named"),
            std::string::npos);
}

TEST(ManifestTest, TensorMaps) {
  // Past the end of the buffer: 513 columns of 256 rows.
  EXPECT_NE(errorOf(edit("\"dims\": [512, 256]", "\"dims\": [513, 256]"))
                .find("the tensor map spans 131073 bytes, but buffer 0 "
                      "(f8e4m3 [256, 512]) has 131072"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"strides\": [512]", "\"strides\": [520]"))
                .find("stride 520 is not a multiple of 16 bytes"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"strides\": [512]", "\"strides\": []"))
                .find("strides: has 0 elements, expected 1"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"box\": [128, 128]", "\"box\": [256, 128]"))
                .find("the innermost box extent (256 bytes) exceeds the 128B "
                      "swizzle span"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"box\": [128, 128]", "\"box\": [8, 128]"))
                .find("(8 bytes) is not a multiple of 16 bytes"),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"swizzle\": \"128B\"", "\"swizzle\": \"256B\""))
                .find("unknown swizzle \"256B\""),
            std::string::npos);
  EXPECT_NE(errorOf(edit("\"dtype\": \"uint8\"", "\"dtype\": \"int8\""))
                .find("unknown tensor-map data type \"int8\""),
            std::string::npos);
}

/// A scratch directory removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path =
        std::filesystem::temp_directory_path() /
        ("fp8rt-test-" +
         std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  void write(const std::string &name, const std::string &contents) {
    std::ofstream(path / name, std::ios::binary) << contents;
  }
};

TEST(ManifestTest, Files) {
  TempDir dir;
  dir.write("gemm.json", kManifest);
  Manifest m;
  std::string error;
  // Load through the directory: its one manifest.
  ASSERT_TRUE(loadManifest(dir.path.string(), m, error)) << error;
  EXPECT_EQ(m.path, (dir.path / "gemm.json").string());
  EXPECT_EQ(m.directory, dir.path.string());

  EXPECT_FALSE(checkManifestFiles(m, error));
  EXPECT_NE(error.find("PTX file '" + (dir.path / "fp8_kernels.ptx").string() +
                       "' does not exist"),
            std::string::npos)
      << error;
  dir.write("fp8_kernels.ptx", "//");
  dir.write("fp8_kernels.cubin", "");
  EXPECT_FALSE(checkManifestFiles(m, error));
  EXPECT_NE(error.find("constant file of buffer 3"), std::string::npos);
  dir.write("gemm.const3.bin", "12345");
  EXPECT_FALSE(checkManifestFiles(m, error));
  EXPECT_NE(error.find("holds 5 bytes, expected 4"), std::string::npos);
  dir.write("gemm.const3.bin", "1234");
  EXPECT_TRUE(checkManifestFiles(m, error)) << error;

  // Two manifests: the directory is ambiguous.
  dir.write("other.json", kManifest);
  EXPECT_FALSE(loadManifest(dir.path.string(), m, error));
  EXPECT_NE(error.find("holds 2 *.json manifests; give the manifest file "
                       "itself"),
            std::string::npos);
  // Errors name the file.
  dir.write("bad.json", "{");
  EXPECT_FALSE(loadManifest((dir.path / "bad.json").string(), m, error));
  EXPECT_EQ(error, (dir.path / "bad.json").string() +
                       ": malformed JSON: line 1, column 2: expected a member "
                       "name in double quotes, found the end of the input");
  EXPECT_FALSE(loadManifest((dir.path / "none.json").string(), m, error));
  EXPECT_NE(error.find("cannot read"), std::string::npos);
}

} // namespace
