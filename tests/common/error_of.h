// What a call throws as vmafexact::Error, for tests of refusals and their
// messages.
#pragma once

#include <functional>
#include <string>

#include "common/error.h"

namespace vmafexact::test {

// The message of the vmafexact::Error that body() throws; "" if it throws none.
inline std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& error) {
    return error.what();
  }
  return {};
}

}  // namespace vmafexact::test
