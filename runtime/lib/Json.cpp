//===- Json.cpp - A small self-contained JSON reader ----------------------===//
//
// Part of fp8-mlir.
//
//===----------------------------------------------------------------------===//

#include "fp8rt/Json.h"

#include <charconv>
#include <cmath>

namespace fp8rt {
namespace json {

const Value *Value::find(std::string_view key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key)
      return &elements[i];
  return nullptr;
}

const char *Value::describe(Kind kind) {
  switch (kind) {
  case Kind::Null:
    return "null";
  case Kind::Bool:
    return "a boolean";
  case Kind::Number:
    return "a number";
  case Kind::String:
    return "a string";
  case Kind::Array:
    return "an array";
  case Kind::Object:
    return "an object";
  }
  return "a value";
}

/// Recursive descent over the text; the first error stops everything.
class Parser {
public:
  explicit Parser(std::string_view text) : text(text) {}

  bool parseDocument(Value &result, std::string &error) {
    skipSpace();
    if (!parseValue(result, /*depth=*/0)) {
      error = message;
      return false;
    }
    skipSpace();
    if (pos != text.size()) {
      fail("unexpected text after the JSON value");
      error = message;
      return false;
    }
    return true;
  }

private:
  /// Deeper nesting than any manifest needs; bounds the recursion.
  static constexpr int kMaxDepth = 64;

  bool atEnd() const { return pos >= text.size(); }
  char peek() const { return atEnd() ? '\0' : text[pos]; }

  void advance() {
    if (text[pos] == '\n') {
      ++line;
      lineStart = pos + 1;
    }
    ++pos;
  }

  void skipSpace() {
    while (!atEnd() && (text[pos] == ' ' || text[pos] == '\t' ||
                        text[pos] == '\n' || text[pos] == '\r'))
      advance();
  }

  int column() const { return static_cast<int>(pos - lineStart) + 1; }

  bool fail(const std::string &what) {
    message = "line " + std::to_string(line) + ", column " +
              std::to_string(column()) + ": " + what;
    return false;
  }

  /// What the parser looks at, for messages.
  std::string found() const {
    if (atEnd())
      return "the end of the input";
    unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c < 0x20 || c >= 0x7f) {
      static const char digits[] = "0123456789abcdef";
      return std::string("byte 0x") + digits[c >> 4] + digits[c & 15];
    }
    return std::string("'") + static_cast<char>(c) + "'";
  }

  bool parseValue(Value &value, int depth) {
    if (depth >= kMaxDepth)
      return fail("JSON nested more than " + std::to_string(kMaxDepth) +
                  " levels deep");
    value.line = line;
    value.column = column();
    switch (peek()) {
    case '{':
      return parseObject(value, depth);
    case '[':
      return parseArray(value, depth);
    case '"':
      value.kind = Value::Kind::String;
      return parseString(value.string);
    case 't':
      value.kind = Value::Kind::Bool;
      value.boolean = true;
      return parseLiteral("true");
    case 'f':
      value.kind = Value::Kind::Bool;
      value.boolean = false;
      return parseLiteral("false");
    case 'n':
      value.kind = Value::Kind::Null;
      return parseLiteral("null");
    default:
      if (peek() == '-' || (peek() >= '0' && peek() <= '9'))
        return parseNumber(value);
      return fail("expected a JSON value, found " + found());
    }
  }

  bool parseLiteral(std::string_view literal) {
    if (text.substr(pos, literal.size()) != literal)
      return fail("expected '" + std::string(literal) + "'");
    for (size_t i = 0; i < literal.size(); ++i)
      advance();
    return true;
  }

  bool parseObject(Value &value, int depth) {
    value.kind = Value::Kind::Object;
    advance(); // '{'
    skipSpace();
    if (peek() == '}') {
      advance();
      return true;
    }
    while (true) {
      skipSpace();
      if (peek() != '"')
        return fail("expected a member name in double quotes, found " +
                    found());
      std::string key;
      int keyLine = line, keyColumn = column();
      if (!parseString(key))
        return false;
      if (value.find(key)) {
        line = keyLine;
        message = "line " + std::to_string(keyLine) + ", column " +
                  std::to_string(keyColumn) + ": duplicate member \"" + key +
                  "\"";
        return false;
      }
      skipSpace();
      if (peek() != ':')
        return fail("expected ':' after member name \"" + key + "\", found " +
                    found());
      advance();
      skipSpace();
      value.keys.push_back(std::move(key));
      value.elements.emplace_back();
      if (!parseValue(value.elements.back(), depth + 1))
        return false;
      skipSpace();
      if (peek() == ',') {
        advance();
        skipSpace();
        if (peek() == '}')
          return fail("trailing ',' before '}'");
        continue;
      }
      if (peek() == '}') {
        advance();
        return true;
      }
      return fail("expected ',' or '}' in an object, found " + found());
    }
  }

  bool parseArray(Value &value, int depth) {
    value.kind = Value::Kind::Array;
    advance(); // '['
    skipSpace();
    if (peek() == ']') {
      advance();
      return true;
    }
    while (true) {
      skipSpace();
      value.elements.emplace_back();
      if (!parseValue(value.elements.back(), depth + 1))
        return false;
      skipSpace();
      if (peek() == ',') {
        advance();
        skipSpace();
        if (peek() == ']')
          return fail("trailing ',' before ']'");
        continue;
      }
      if (peek() == ']') {
        advance();
        return true;
      }
      return fail("expected ',' or ']' in an array, found " + found());
    }
  }

  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  /// Four hex digits after "\u".
  bool parseHex4(uint32_t &code) {
    code = 0;
    for (int i = 0; i < 4; ++i) {
      char c = peek();
      uint32_t digit;
      if (c >= '0' && c <= '9')
        digit = c - '0';
      else if (c >= 'a' && c <= 'f')
        digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        digit = c - 'A' + 10;
      else
        return fail("expected four hex digits after \\u, found " + found());
      code = code * 16 + digit;
      advance();
    }
    return true;
  }

  /// The length of the well-formed UTF-8 sequence that `s` starts with
  /// (Unicode's table of well-formed byte sequences: no overlong forms, no
  /// surrogates, nothing above U+10FFFF), or 0.
  static size_t getUtf8Length(std::string_view s) {
    auto byte = [&](size_t i) {
      return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u;
    };
    unsigned lead = byte(0);
    if (lead < 0xC2 || lead > 0xF4)
      return 0;
    size_t length = lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    // The second byte's range excludes overlong forms (E0, F0), UTF-16
    // surrogates (ED) and code points above U+10FFFF (F4).
    unsigned lo = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
    unsigned hi = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
    if (byte(1) < lo || byte(1) > hi)
      return 0;
    for (size_t i = 2; i < length; ++i)
      if (byte(i) < 0x80 || byte(i) > 0xBF)
        return 0;
    return length;
  }

  bool parseString(std::string &out) {
    advance(); // '"'
    while (true) {
      if (atEnd())
        return fail("unterminated string");
      char c = text[pos];
      if (c == '"') {
        advance();
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        return fail("control character " + found() +
                    " in a string (escape it)");
      if (static_cast<unsigned char>(c) >= 0x80) {
        size_t length = getUtf8Length(text.substr(pos));
        if (!length)
          return fail("invalid UTF-8 (" + found() + ") in a string");
        out.append(text.substr(pos, length));
        for (size_t i = 0; i < length; ++i)
          advance();
        continue;
      }
      if (c != '\\') {
        out += c;
        advance();
        continue;
      }
      advance(); // '\\'
      char escape = peek();
      switch (escape) {
      case '"':
      case '\\':
      case '/':
        out += escape;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        advance();
        uint32_t code;
        if (!parseHex4(code))
          return false;
        if (code >= 0xD800 && code < 0xDC00) {
          // A high surrogate must be followed by a low one.
          if (peek() != '\\' || pos + 1 >= text.size() || text[pos + 1] != 'u')
            return fail("unpaired UTF-16 surrogate in \\u escape");
          advance();
          advance();
          uint32_t low;
          if (!parseHex4(low))
            return false;
          if (low < 0xDC00 || low >= 0xE000)
            return fail("unpaired UTF-16 surrogate in \\u escape");
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        } else if (code >= 0xDC00 && code < 0xE000) {
          return fail("unpaired UTF-16 surrogate in \\u escape");
        }
        appendUtf8(out, code);
        continue; // parseHex4 advanced past the digits
      }
      default:
        return fail("invalid escape '\\" + std::string(1, escape) +
                    "' in a string");
      }
      advance();
    }
  }

  bool parseNumber(Value &value) {
    value.kind = Value::Kind::Number;
    size_t start = pos;
    bool integral = true;
    if (peek() == '-')
      advance();
    if (peek() == '0') {
      advance();
      if (peek() >= '0' && peek() <= '9')
        return fail("numbers must not have leading zeros");
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9')
        advance();
    } else {
      return fail("expected a digit, found " + found());
    }
    if (peek() == '.') {
      integral = false;
      advance();
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected a digit after '.', found " + found());
      while (peek() >= '0' && peek() <= '9')
        advance();
    }
    if (peek() == 'e' || peek() == 'E') {
      integral = false;
      advance();
      if (peek() == '+' || peek() == '-')
        advance();
      if (!(peek() >= '0' && peek() <= '9'))
        return fail("expected a digit in the exponent, found " + found());
      while (peek() >= '0' && peek() <= '9')
        advance();
    }
    const char *first = text.data() + start;
    const char *last = text.data() + pos;
    if (integral) {
      auto [end, ec] = std::from_chars(first, last, value.integer);
      value.integral = ec == std::errc() && end == last;
    }
    auto [end, ec] = std::from_chars(first, last, value.number);
    if (ec == std::errc::result_out_of_range || !std::isfinite(value.number))
      return fail("number " + std::string(first, last) +
                  " is out of the range of a double");
    if (ec != std::errc() || end != last)
      return fail("malformed number " + std::string(first, last));
    if (!value.integral && integral)
      value.integer = 0; // too large for int64_t: a double only
    return true;
  }

  std::string_view text;
  size_t pos = 0;
  int line = 1;
  size_t lineStart = 0;
  std::string message;
};

bool parse(std::string_view text, Value &result, std::string &error) {
  result = Value();
  Parser parser(text);
  return parser.parseDocument(result, error);
}

} // namespace json
} // namespace fp8rt
