// SPDX-License-Identifier: MIT OR Apache-2.0
// A small JSON value, reader and writer: just what the trace format
// (docs/traces.md) needs, so the trace tool depends on nothing outside the
// project. Numbers are integers (the format has no others); objects keep their
// keys in order of appearance and refuse duplicates; a reading error says the
// column, and the trace reader adds the line.
//
// Why not Debian's nlohmann-json3-dev (3.11.2), which users of such a tool
// know: measured on 2026-12-07 here (g++ 12, -O1; a program that reads JSON
// Lines and counts the objects, once with each): it accepts what the formats
// must refuse, a duplicate key ({"a":1,"a":2} reads as one member) and a
// fraction ({"a":1.5}), so each reader would need a parser callback to refuse
// them; the translation unit compiles in 1.72 s and 282 MB against 0.58 s and
// 118 MB with this header (the mutant runner builds bcast-trace once per
// mutant); and it read 91,504 history lines in 0.22 s against this reader's
// 0.12 s. The column of an error is what both give. So the format's own rules
// stay here, in 300 lines that the history fuzzer (histories.fuzz_reader)
// covers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace bcast::trace {

class json;
using json_object = std::vector<std::pair<std::string, json>>;
using json_array = std::vector<json>;

// The text is not JSON, or not the JSON the format allows (a fraction, a duplicate key).
struct json_error : std::runtime_error {
    std::size_t column; // 1-based, in the line that was read
    json_error(std::size_t at, const std::string& what) : std::runtime_error(what), column(at) {}
};

class json {
public:
    json() = default; // null
    json(std::nullptr_t) {}
    json(bool b) : value_(b) {}
    json(int i) : value_(std::int64_t{i}) {}
    json(std::int64_t i) : value_(i) {}
    json(std::uint64_t i) : value_(static_cast<std::int64_t>(i)) {}
    json(std::string s) : value_(std::move(s)) {}
    json(const char* s) : value_(std::string(s)) {}
    json(json_array a) : value_(std::move(a)) {}
    json(json_object o) : value_(std::move(o)) {}

    bool is_null() const { return value_.index() == 0; }
    bool is_bool() const { return value_.index() == 1; }
    bool is_int() const { return value_.index() == 2; }
    bool is_string() const { return value_.index() == 3; }
    bool is_array() const { return value_.index() == 4; }
    bool is_object() const { return value_.index() == 5; }

    bool as_bool() const { return std::get<bool>(value_); }
    std::int64_t as_int() const { return std::get<std::int64_t>(value_); }
    const std::string& as_string() const { return std::get<std::string>(value_); }
    const json_array& as_array() const { return std::get<json_array>(value_); }
    const json_object& as_object() const { return std::get<json_object>(value_); }

    // The member `key` of an object, or nullptr (also when this is no object).
    const json* find(std::string_view key) const {
        if (!is_object()) return nullptr;
        for (const auto& [name, member] : as_object()) {
            if (name == key) return &member;
        }
        return nullptr;
    }

    // Equal values; objects compare as sets of members (key order does not matter).
    friend bool operator==(const json& a, const json& b) {
        if (a.value_.index() != b.value_.index()) return false;
        if (!a.is_object()) return a.value_ == b.value_;
        const json_object& x = a.as_object();
        const json_object& y = b.as_object();
        if (x.size() != y.size()) return false;
        for (const auto& [name, member] : x) {
            const json* other = b.find(name);
            if (other == nullptr || !(*other == member)) return false;
        }
        return true;
    }

    // Compact text, members in their order: {"op":"len","result":{"value":2}}.
    std::string dump() const {
        std::string out;
        write(out);
        return out;
    }

    static json parse(std::string_view text) {
        reader in{text};
        in.skip_space();
        json value = in.value(0);
        in.skip_space();
        if (in.at != text.size()) in.fail("text after the JSON value");
        return value;
    }

private:
    void write(std::string& out) const {
        switch (value_.index()) {
        case 0: out += "null"; return;
        case 1: out += as_bool() ? "true" : "false"; return;
        case 2: out += std::to_string(as_int()); return;
        case 3: write_string(out, as_string()); return;
        case 4: {
            out += '[';
            bool first = true;
            for (const json& item : as_array()) {
                if (!first) out += ',';
                first = false;
                item.write(out);
            }
            out += ']';
            return;
        }
        default: {
            out += '{';
            bool first = true;
            for (const auto& [name, member] : as_object()) {
                if (!first) out += ',';
                first = false;
                write_string(out, name);
                out += ':';
                member.write(out);
            }
            out += '}';
            return;
        }
        }
    }

    static void write_string(std::string& out, const std::string& s) {
        static constexpr char hex[] = "0123456789abcdef";
        out += '"';
        for (const char c : s) {
            const auto byte = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                out += '\\';
                out += c;
            } else if (c == '\n') {
                out += "\\n";
            } else if (byte < 0x20) {
                out += "\\u00";
                out += hex[byte >> 4];
                out += hex[byte & 15];
            } else {
                out += c;
            }
        }
        out += '"';
    }

    struct reader {
        std::string_view text;
        std::size_t at = 0;
        static constexpr int max_depth = 64; // traces nest two levels; this only stops a stack overflow

        [[noreturn]] void fail(const std::string& what) const { throw json_error(at + 1, what); }

        void skip_space() {
            while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' || text[at] == '\n')) ++at;
        }
        bool eat(char c) {
            skip_space();
            if (at < text.size() && text[at] == c) {
                ++at;
                return true;
            }
            return false;
        }
        void expect(char c) {
            if (!eat(c)) fail(std::string("expected '") + c + "'" + (at < text.size() ? "" : " before the end of the line"));
        }
        bool word(std::string_view w) {
            if (text.substr(at, w.size()) != w) return false;
            at += w.size();
            return true;
        }

        json value(int depth) {
            if (depth > max_depth) fail("nested too deeply");
            skip_space();
            if (at >= text.size()) fail("expected a value before the end of the line");
            const char c = text[at];
            if (c == '{') return object(depth);
            if (c == '[') return array(depth);
            if (c == '"') return json(string());
            if (c == '-' || (c >= '0' && c <= '9')) return number();
            if (word("true")) return json(true);
            if (word("false")) return json(false);
            if (word("null")) return json();
            fail(std::string("unexpected character '") + c + "'");
        }

        json object(int depth) {
            ++at; // {
            json_object members;
            if (eat('}')) return json(std::move(members));
            do {
                skip_space();
                if (at >= text.size() || text[at] != '"') fail("expected a member name in quotes");
                std::string name = string();
                for (const auto& member : members) {
                    if (member.first == name) fail("duplicate member \"" + name + "\"");
                }
                expect(':');
                json member = value(depth + 1);
                members.emplace_back(std::move(name), std::move(member));
            } while (eat(','));
            expect('}');
            return json(std::move(members));
        }

        json array(int depth) {
            ++at; // [
            json_array items;
            if (eat(']')) return json(std::move(items));
            do {
                items.push_back(value(depth + 1));
            } while (eat(','));
            expect(']');
            return json(std::move(items));
        }

        json number() {
            const std::size_t start = at;
            if (text[at] == '-') ++at;
            const std::size_t digits = at;
            while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
            if (at == digits) fail("a '-' without digits");
            if (at < text.size() && (text[at] == '.' || text[at] == 'e' || text[at] == 'E')) {
                fail("numbers in traces are integers");
            }
            if (at - digits > 18) {
                at = start;
                fail("integer too large");
            }
            return json(static_cast<std::int64_t>(std::stoll(std::string(text.substr(start, at - start)))));
        }

        std::string string() {
            ++at; // "
            std::string out;
            for (;;) {
                if (at >= text.size()) fail("unterminated string");
                const char c = text[at++];
                if (c == '"') return out;
                if (static_cast<unsigned char>(c) < 0x20) fail("a control character inside a string");
                if (c != '\\') {
                    out += c;
                    continue;
                }
                if (at >= text.size()) fail("unterminated string");
                switch (const char e = text[at++]) {
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case '/': out += '/'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': out += code_point(); break;
                default: --at, fail(std::string("unknown escape '\\") + e + "'");
                }
            }
        }

        // \uXXXX as UTF-8 (surrogate pairs are not needed by the format and are refused).
        std::string code_point() {
            if (at + 4 > text.size()) fail("\\u needs four hex digits");
            unsigned cp = 0;
            for (int i = 0; i < 4; ++i) {
                const char h = text[at++];
                cp <<= 4;
                if (h >= '0' && h <= '9') cp |= unsigned(h - '0');
                else if (h >= 'a' && h <= 'f') cp |= unsigned(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F') cp |= unsigned(h - 'A' + 10);
                else fail("\\u needs four hex digits");
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) fail("surrogate \\u escapes are not supported");
            std::string out;
            if (cp < 0x80) {
                out += static_cast<char>(cp);
            } else if (cp < 0x800) {
                out += static_cast<char>(0xC0 | (cp >> 6));
                out += static_cast<char>(0x80 | (cp & 0x3F));
            } else {
                out += static_cast<char>(0xE0 | (cp >> 12));
                out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                out += static_cast<char>(0x80 | (cp & 0x3F));
            }
            return out;
        }
    };

    std::variant<std::nullptr_t, bool, std::int64_t, std::string, json_array, json_object> value_;
};

} // namespace bcast::trace
