// util::PodSpan / util::PodArray (util/pod_array.hpp): elements read at any alignment, owned or
// borrowed storage, sharing between copies, and the views the MSM takes.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "util/pod_array.hpp"

using splitprove::util::PodArray;
using splitprove::util::PodSpan;

namespace {

struct Pt {
  uint64_t x[4];
  uint64_t y[4];
  friend bool operator==(const Pt&, const Pt&) = default;
};

Pt make(uint64_t i) {
  Pt p;
  for (uint64_t k = 0; k < 4; ++k) {
    p.x[k] = i * 1000 + k;
    p.y[k] = ~(i * 1000 + k);
  }
  return p;
}

}  // namespace

TEST(PodSpan, ReadsElementsAtEveryAlignment) {
  std::vector<Pt> pts;
  for (uint64_t i = 0; i < 10; ++i) pts.push_back(make(i));
  for (size_t shift = 0; shift < 8; ++shift) {
    SCOPED_TRACE(shift);
    std::vector<std::byte> buf(shift + pts.size() * sizeof(Pt) + 8);
    std::memcpy(buf.data() + shift, pts.data(), pts.size() * sizeof(Pt));
    const PodSpan<Pt> s(buf.data() + shift, pts.size());
    ASSERT_EQ(s.size(), pts.size());
    for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(s[i], pts[i]) << i;
    // A std::span of the elements only where they are aligned for the type.
    const bool aligned = reinterpret_cast<uintptr_t>(buf.data() + shift) % alignof(Pt) == 0;
    ASSERT_EQ(s.aligned().has_value(), aligned);
    if (aligned) EXPECT_EQ((*s.aligned())[3], pts[3]);
    const auto tail = s.subspan(4);
    ASSERT_EQ(tail.size(), 6u);
    EXPECT_EQ(tail[0], pts[4]);
    EXPECT_EQ(s.subspan(2, 3)[2], pts[4]);
  }
}

TEST(PodSpan, ConvertsFromSpansAndVectors) {
  std::vector<Pt> v{make(1), make(2)};
  const std::array<Pt, 3> a{make(3), make(4), make(5)};
  auto take = [](PodSpan<Pt> s) { return s.size() ? s[s.size() - 1] : Pt{}; };
  EXPECT_EQ(take(v), make(2));
  EXPECT_EQ(take(std::span<Pt>(v)), make(2));
  EXPECT_EQ(take(std::span<const Pt>(a)), make(5));
  EXPECT_EQ(take(a), make(5));
  EXPECT_TRUE(PodSpan<Pt>().empty());
}

TEST(PodArray, OwnsAVectorAndSharesItBetweenCopies) {
  std::vector<Pt> v{make(7), make(8), make(9)};
  const Pt* storage = v.data();
  PodArray<Pt> a(std::move(v));
  EXPECT_FALSE(a.borrowed());
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[1], make(8));
  // Moved in, not copied; and copies of the array share the elements.
  EXPECT_EQ(reinterpret_cast<const Pt*>(a.view().bytes()), storage);
  PodArray<Pt> b;
  {
    const PodArray<Pt> c = a;
    a = PodArray<Pt>();
    b = c;
  }
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(reinterpret_cast<const Pt*>(b.view().bytes()), storage);
  EXPECT_EQ(b[2], make(9));
}

TEST(PodArray, BorrowedElementsLiveAsLongAsTheirOwner) {
  // The owner: a buffer with the elements 4 bytes past an 8-byte boundary, as a .zkey section
  // can be.
  auto owner = std::make_shared<std::vector<uint64_t>>(1 + 2 * sizeof(Pt) / 8 + 1, 0);
  std::byte* at = reinterpret_cast<std::byte*>(owner->data()) + 4;
  const Pt p0 = make(11), p1 = make(12);
  std::memcpy(at, &p0, sizeof(Pt));
  std::memcpy(at + sizeof(Pt), &p1, sizeof(Pt));
  std::weak_ptr<std::vector<uint64_t>> alive = owner;
  PodArray<Pt> a = PodArray<Pt>::borrow(owner, at, 2);
  owner.reset();
  EXPECT_TRUE(a.borrowed());
  EXPECT_FALSE(alive.expired());  // the array keeps the owner
  EXPECT_FALSE(a.view().aligned().has_value());
  EXPECT_EQ(a[0], p0);
  EXPECT_EQ(a[1], p1);
  a = PodArray<Pt>();
  EXPECT_TRUE(alive.expired());  // and lets it go with its last copy
}
