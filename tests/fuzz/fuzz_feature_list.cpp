// Fuzz target: the element's features property (libvmaf's --feature syntax,
// name=option=value:option=value, comma-separated): names, option tables,
// values and libvmaf's sharing rule.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    vmafexact::parse_feature_list(text);
  } catch (const vmafexact::Error&) {
  }
  return 0;
}
