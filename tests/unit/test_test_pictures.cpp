// The shared TestPlane (tests/common/test_pictures.h) that the twin harness
// relies on: its guards catch a write outside the samples, repainting them
// keeps the samples, and views address the samples.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "test_pictures.h"

using vmafexact::test::TestPlane;

TEST(TestPlane, GuardsCatchWritesOutsideTheSamples) {
  for (unsigned bpc : {8u, 10u}) {
    TestPlane plane(5, 3, bpc, 3, 1);
    for (unsigned y = 0; y < 3; ++y)
      for (unsigned x = 0; x < 5; ++x) plane.set(x, y, x + 10 * y);
    EXPECT_TRUE(plane.guards_intact());
    auto* data = const_cast<std::uint8_t*>(plane.plane().data);
    const unsigned bytes = bpc > 8 ? 2 : 1;
    for (std::ptrdiff_t offset : {-1L, static_cast<long>(5 * bytes),
                                  static_cast<long>(plane.stride() * 3), -plane.stride()}) {
      TestPlane copy = plane;
      auto* p = const_cast<std::uint8_t*>(copy.plane().data) + offset;
      *p = static_cast<std::uint8_t>(*p ^ 0xFF);
      EXPECT_FALSE(copy.guards_intact()) << "offset " << offset;
      EXPECT_EQ(copy.first_changed_guard(), std::optional<std::ptrdiff_t>(offset));
    }
    data[0] ^= 1;  // a sample: not a guard
    EXPECT_TRUE(plane.guards_intact());
    plane.repaint_guards(77);
    EXPECT_TRUE(plane.guards_intact());
    EXPECT_EQ(plane.get(4, 2), 24u);
    EXPECT_EQ(plane.get(0, 0), 1u);
    EXPECT_EQ(plane.view().planes[0].width, 5u);
  }
}
