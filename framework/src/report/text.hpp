#pragma once
// Text helpers of the report: HTML and gnuplot escaping, number formatting, JSON safe inside a
// <script> element.
#include <cmath>
#include <cstdio>
#include <string>

#include "rankone/core/params.hpp"

namespace rankone::reporting {

inline std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

/// A gnuplot single-quoted string literal (the only escape is a doubled quote). A line break would
/// end the command inside the string, so control characters become spaces.
inline std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += ' ';
    else out += c;
  }
  return out + "'";
}

/// A number for people: integers (counts, sizes) in full, anything else to `precision` digits.
inline std::string number(double v, int precision = 4) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  if (v == std::round(v) && std::abs(v) < 1e9)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

inline void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

/// JSON to embed in an HTML <script> element: '<', '>' and '&' as \u escapes, so no text of the
/// data (a label "</script>") can end the element; the result is still the same JSON.
inline std::string json_for_script(const Json& value) {
  std::string out;
  for (char c : value.dump(-1, ' ', false, Json::error_handler_t::replace)) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

}  // namespace rankone::reporting
