#pragma once
// Merkle inclusion over the benchmark hash (circuit/hash.hpp), binary trees of depth d.
//
// Leaf index bits, least significant first, choose the side at each level: bit j = 0 means the
// running node is the left child at level j (its sibling the right one), 1 the right child.
// SparseMerkleTree computes a root and paths natively for a tree of 2^d leaves of which only a
// few are set (all others 0), in O(set leaves · d) hashes: the empty subtree of height h hashes
// to empty[h] = H(empty[h-1], empty[h-1]), empty[0] = 0.
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "circuit/hash.hpp"

namespace splitprove::circuit {

// The root reached from `leaf` along `path_bits` (each boolean-constrained by the caller) and
// `siblings`: per level one conditional swap (1 constraint) and one hash.
template <class CS>
typename CS::Lc merkle_root_gadget(CS& cs, typename CS::Lc leaf, std::span<const Variable> path_bits,
                                   std::span<const Variable> siblings) {
  if (path_bits.size() != siblings.size())
    throw Error(fmt::format("merkle: {} path bits for {} siblings", path_bits.size(), siblings.size()));
  auto ns = cs.scope("merkle");
  for (size_t j = 0; j < path_bits.size(); ++j) {
    auto level = cs.scope("level", int64_t(j));
    auto [l, r] = cond_swap(cs, path_bits[j], leaf, cs.lc(siblings[j]));
    leaf = bench_hash_gadget(cs, l, r);
  }
  return leaf;
}

template <class Fr>
Fr merkle_root_native(Fr leaf, uint64_t index, std::span<const Fr> siblings) {
  for (size_t j = 0; j < siblings.size(); ++j)
    leaf = (index >> j) & 1 ? bench_hash(siblings[j], leaf) : bench_hash(leaf, siblings[j]);
  return leaf;
}

template <class Fr>
class SparseMerkleTree {
 public:
  // leaves: (index, value) pairs, index < 2^depth; a repeated index keeps its last value.
  SparseMerkleTree(unsigned depth, std::span<const std::pair<uint64_t, Fr>> leaves)
      : depth_(depth), levels_(depth + 1) {
    if (depth > 62) throw Error(fmt::format("merkle: depth {} is more than 62", depth));
    empty_.push_back(Fr::zero());
    for (unsigned h = 1; h <= depth; ++h) empty_.push_back(bench_hash(empty_[h - 1], empty_[h - 1]));
    for (const auto& [i, v] : leaves) {
      if (i >> depth) throw Error(fmt::format("merkle: leaf {} outside a tree of depth {}", i, depth));
      levels_[0][i] = v;
    }
    for (unsigned h = 0; h < depth; ++h)
      for (const auto& [i, v] : levels_[h]) {
        const uint64_t p = i >> 1;
        if (levels_[h + 1].count(p)) continue;
        levels_[h + 1][p] = bench_hash(node(h, 2 * p), node(h, 2 * p + 1));
      }
  }
  Fr root() const { return node(depth_, 0); }
  std::vector<Fr> siblings(uint64_t index) const {
    std::vector<Fr> s(depth_);
    for (unsigned h = 0; h < depth_; ++h) s[h] = node(h, (index >> h) ^ 1);
    return s;
  }

 private:
  Fr node(unsigned h, uint64_t i) const {
    auto it = levels_[h].find(i);
    return it == levels_[h].end() ? empty_[h] : it->second;
  }
  unsigned depth_;
  std::vector<Fr> empty_;
  std::vector<std::map<uint64_t, Fr>> levels_;
};

}  // namespace splitprove::circuit
