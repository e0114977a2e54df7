//===- JsonTest.cpp - The runtime's JSON reader ---------------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Json.h"
#include "gtest/gtest.h"

using namespace fp8rt::json;

namespace {

/// Parses text that must be valid.
Value parseOk(const std::string &text) {
  Value value;
  std::string error;
  EXPECT_TRUE(parse(text, value, error)) << text << ": " << error;
  return value;
}

/// The error of text that must be invalid.
std::string parseError(const std::string &text) {
  Value value;
  std::string error;
  EXPECT_FALSE(parse(text, value, error)) << text;
  return error;
}

TEST(JsonTest, Scalars) {
  EXPECT_TRUE(parseOk("null").isNull());
  EXPECT_TRUE(parseOk(" true ").getBool());
  EXPECT_FALSE(parseOk("false").getBool());
  EXPECT_EQ(parseOk("\"text\"").getString(), "text");
  Value integer = parseOk("-42");
  EXPECT_TRUE(integer.isInteger());
  EXPECT_EQ(integer.getInteger(), -42);
  EXPECT_EQ(integer.getNumber(), -42.0);
  Value real = parseOk("0.5e1");
  EXPECT_TRUE(real.isNumber());
  EXPECT_FALSE(real.isInteger());
  EXPECT_EQ(real.getNumber(), 5.0);
  // Integers keep all 64 bits; larger ones are doubles only.
  EXPECT_EQ(parseOk("9223372036854775807").getInteger(), INT64_MAX);
  Value big = parseOk("9223372036854775808");
  EXPECT_FALSE(big.isInteger());
  EXPECT_EQ(big.getNumber(), 9223372036854775808.0);
}

TEST(JsonTest, Strings) {
  EXPECT_EQ(parseOk(R"("a\"b\\c\/d\n\t")").getString(), "a\"b\\c/d\n\t");
  EXPECT_EQ(parseOk(R"("\u00e9")").getString(), "\xc3\xa9");
  EXPECT_EQ(parseOk(R"("\u20AC")").getString(), "\xe2\x82\xac");
  // A surrogate pair is one code point (U+1F600).
  EXPECT_EQ(parseOk(R"("\ud83d\ude00")").getString(), "\xf0\x9f\x98\x80");
}

TEST(JsonTest, ContainersKeepOrderAndPositions) {
  Value value = parseOk("{\n  \"b\": [1, 2],\n  \"a\": {}\n}");
  ASSERT_TRUE(value.isObject());
  ASSERT_EQ(value.getKeys().size(), 2u);
  EXPECT_EQ(value.getKeys()[0], "b");
  EXPECT_EQ(value.getKeys()[1], "a");
  const Value *b = value.find("b");
  ASSERT_TRUE(b && b->isArray());
  EXPECT_EQ(b->getElements().size(), 2u);
  EXPECT_EQ(b->getLine(), 2);
  EXPECT_EQ(b->getColumn(), 8);
  EXPECT_EQ(b->getElements()[1].getColumn(), 12);
  EXPECT_TRUE(value.find("a")->isObject());
  EXPECT_EQ(value.find("c"), nullptr);
}

TEST(JsonTest, Errors) {
  EXPECT_EQ(parseError(""),
            "line 1, column 1: expected a JSON value, found the end of the "
            "input");
  EXPECT_EQ(parseError("[1, 2,]"), "line 1, column 7: trailing ',' before ']'");
  EXPECT_EQ(parseError("{\"a\": 1,\n }"),
            "line 2, column 2: trailing ',' before '}'");
  EXPECT_EQ(parseError("{\"a\": 1, \"a\": 2}"),
            "line 1, column 10: duplicate member \"a\"");
  EXPECT_EQ(parseError("{a: 1}"),
            "line 1, column 2: expected a member name in double quotes, "
            "found 'a'");
  EXPECT_EQ(parseError("[01]"),
            "line 1, column 3: numbers must not have leading zeros");
  EXPECT_EQ(parseError("\"abc"), "line 1, column 5: unterminated string");
  EXPECT_EQ(parseError("\"a\nb\""),
            "line 1, column 3: control character byte 0x0a in a string "
            "(escape it)");
  EXPECT_EQ(parseError("\"\\x\""),
            "line 1, column 3: invalid escape '\\x' in a string");
  EXPECT_EQ(parseError("\"\\ud800\""),
            "line 1, column 8: unpaired UTF-16 surrogate in \\u escape");
  EXPECT_EQ(parseError("[1] x"),
            "line 1, column 5: unexpected text after the JSON value");
  EXPECT_EQ(parseError("tru"), "line 1, column 1: expected 'true'");
  EXPECT_EQ(parseError("1e999"),
            "line 1, column 6: number 1e999 is out of the range of a double");
  EXPECT_EQ(parseError("-"), "line 1, column 2: expected a digit, found the "
                             "end of the input");
  EXPECT_EQ(parseError("1."),
            "line 1, column 3: expected a digit after '.', found the end of "
            "the input");
}

TEST(JsonTest, DepthIsBounded) {
  std::string deep(65, '[');
  deep += std::string(65, ']');
  EXPECT_EQ(parseError(deep),
            "line 1, column 65: JSON nested more than 64 levels deep");
  std::string ok(64, '[');
  ok += std::string(64, ']');
  parseOk(ok);
}

} // namespace
