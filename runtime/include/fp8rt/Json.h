//===- Json.h - A small self-contained JSON reader --------------*- C++ -*-===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//
//
// Just enough JSON (RFC 8259) for launch manifests: a strict recursive
// descent parser into a tree of values that remember where they were written,
// so that the manifest checker can point at the offending line. No exceptions,
// no third-party code.
//
// Numbers keep both readings: integers that fit int64_t are exact, everything
// else is a double. Objects keep their members in order; duplicate keys are
// an error (they would make the manifest ambiguous).
//
//===----------------------------------------------------------------------===//

#ifndef FP8RT_JSON_H
#define FP8RT_JSON_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fp8rt {
namespace json {

/// One JSON value and the position (1-based line and column) it starts at.
class Value {
public:
  enum class Kind { Null, Bool, Number, String, Array, Object };

  Value() = default;

  Kind getKind() const { return kind; }
  bool isNull() const { return kind == Kind::Null; }
  bool isBool() const { return kind == Kind::Bool; }
  bool isNumber() const { return kind == Kind::Number; }
  /// A number written without fraction or exponent that fits int64_t.
  bool isInteger() const { return kind == Kind::Number && integral; }
  bool isString() const { return kind == Kind::String; }
  bool isArray() const { return kind == Kind::Array; }
  bool isObject() const { return kind == Kind::Object; }

  bool getBool() const { return boolean; }
  int64_t getInteger() const { return integer; }
  double getNumber() const { return number; }
  const std::string &getString() const { return string; }
  const std::vector<Value> &getElements() const { return elements; }
  /// Object members, in the order written.
  const std::vector<std::string> &getKeys() const { return keys; }
  const std::vector<Value> &getMembers() const { return elements; }
  /// The member called `key` of an object, or null if there is none.
  const Value *find(std::string_view key) const;

  int getLine() const { return line; }
  int getColumn() const { return column; }

  /// A short name of the kind ("an object", "a string", ...) for messages.
  static const char *describe(Kind kind);

private:
  friend class Parser;

  Kind kind = Kind::Null;
  bool boolean = false;
  bool integral = false;
  int64_t integer = 0;
  double number = 0;
  std::string string;
  /// Array elements, or object member values (parallel to `keys`).
  std::vector<Value> elements;
  std::vector<std::string> keys;
  int line = 0;
  int column = 0;
};

/// Parses `text` as one JSON document into `result`. On failure returns false
/// and sets `error` to "line L, column C: what is wrong".
bool parse(std::string_view text, Value &result, std::string &error);

} // namespace json
} // namespace fp8rt

#endif // FP8RT_JSON_H
