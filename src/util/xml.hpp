#pragma once
// Text for SVG and XML: the one escaping function the plots use.
#include <string>
#include <string_view>

namespace splitprove::util {

// `s` with &, <, >, " and ' replaced by their entities (safe in text and in attribute values).
inline std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += c;
    }
  }
  return o;
}

}  // namespace splitprove::util
