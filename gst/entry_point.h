// The element's virtual methods as GStreamer calls them (from C): each runs a
// C++ body through guarded() (element_guard.h), so that no exception leaves
// it. entry_point<body, "what it does", failure> is a function of the body's
// signature; when the body throws, the element error names "what it does"
// and the function returns `failure`.
#pragma once

#include <gst/gst.h>

#include <algorithm>
#include <cstddef>

#include "element_guard.h"

namespace vmafexact::gst {

// A string literal as a template argument.
template <std::size_t N>
struct Literal {
  char text[N];
  constexpr Literal(const char (&literal)[N]) { std::copy_n(literal, N, text); }
};

template <auto Body, Literal During, auto Failure>
struct EntryPoint;

template <typename Result, typename Object, typename... Args, Result (*Body)(Object*, Args...),
          Literal During, auto Failure>
struct EntryPoint<Body, During, Failure> {
  static Result call(Object* object, Args... args) noexcept {
    return guarded(GST_ELEMENT(object), During.text, static_cast<Result>(Failure),
                   [&] { return Body(object, args...); });
  }
};

template <auto Body, Literal During, auto Failure>
inline constexpr auto entry_point = &EntryPoint<Body, During, Failure>::call;

}  // namespace vmafexact::gst
