#pragma once
// snarkjs's JSON files for Groth16: proof.json, public.json, verification_key.json.
//
// Written byte for byte as snarkjs writes them (bfj with {space: 1}: one space of indent per level,
// `"key": value`, no trailing newline, an empty array as "[" newline indent "]"). Field elements
// are decimal strings of the plain value. G1 = [x, y, "1"], G2 = [[x.c0, x.c1], [y.c0, y.c1], ["1",
// "0"]] (infinity: ["0", "1", "0"] and [["0","0"], ["1","0"], ["0","0"]]). vk_alphabeta_12 = e(α,
// β) as o[i][j][k] = c_i.c_j.c_k of Fp12 = Fp6[w], Fp6 = Fp2[v], Fp2 = Fp[u].
//
// Reading accepts any JSON layout, projective points with any z (snarkjs's own are z = 1), and
// checks: decimal strings only, every coordinate < q, every scalar < r, points on the curve and in
// the prime-order subgroup (stricter than snarkjs, which checks the curve equation only), the curve
// name and protocol, nPublic = |IC| - 1, and vk_alphabeta_12 = e(vk_alpha_1, vk_beta_2) when
// present.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zk/types.hpp"

namespace splitprove::io {

template <class E>
std::string proof_to_json(const zk::Proof<E>& proof);
template <class E>
zk::Proof<E> proof_from_json(std::string_view text, const std::string& name);

template <class E>
std::string public_to_json(std::span<const typename E::Fr> signals);
template <class E>
std::vector<typename E::Fr> public_from_json(std::string_view text, const std::string& name);

// Computes vk_alphabeta_12 with E::Pairing::pairing (the value snarkjs writes).
template <class E>
std::string vkey_to_json(const zk::VerifyingKey<E>& vk);
template <class E>
zk::VerifyingKey<E> vkey_from_json(std::string_view text, const std::string& name);

// File forms of the above (the error names the path).
template <class E>
zk::Proof<E> read_proof_json(const std::string& path);
template <class E>
std::vector<typename E::Fr> read_public_json(const std::string& path);
template <class E>
zk::VerifyingKey<E> read_vkey_json(const std::string& path);
template <class E>
void write_proof_json(const std::string& path, const zk::Proof<E>& proof);
template <class E>
void write_public_json(const std::string& path, std::span<const typename E::Fr> signals);
template <class E>
void write_vkey_json(const std::string& path, const zk::VerifyingKey<E>& vk);

// True for the names snarkjs accepts for the curve (case and punctuation ignored):
// "bls12381" for BLS12-381; "bn128", "bn254", "altbn128" for BN254.
bool curve_name_matches(std::string_view name, ec::CurveId id);

// The curve a snarkjs proof or verification key names in its "curve" member (the caller then
// reads the file with that engine); nullopt when there is none. Errors name the file: not a JSON
// object, a "curve" that is not a string or names no known curve.
std::optional<ec::CurveId> curve_of_json(std::string_view text, const std::string& name);
std::optional<ec::CurveId> read_curve_of_json(const std::string& path);

#define SPLITPROVE_IO_JSON_EXTERN(E)                                                            \
  extern template std::string proof_to_json<E>(const zk::Proof<E>&);                            \
  extern template zk::Proof<E> proof_from_json<E>(std::string_view, const std::string&);        \
  extern template std::string public_to_json<E>(std::span<const E::Fr>);                        \
  extern template std::vector<E::Fr> public_from_json<E>(std::string_view, const std::string&); \
  extern template std::string vkey_to_json<E>(const zk::VerifyingKey<E>&);                      \
  extern template zk::VerifyingKey<E> vkey_from_json<E>(std::string_view, const std::string&);  \
  extern template zk::Proof<E> read_proof_json<E>(const std::string&);                          \
  extern template std::vector<E::Fr> read_public_json<E>(const std::string&);                   \
  extern template zk::VerifyingKey<E> read_vkey_json<E>(const std::string&);                    \
  extern template void write_proof_json<E>(const std::string&, const zk::Proof<E>&);            \
  extern template void write_public_json<E>(const std::string&, std::span<const E::Fr>);        \
  extern template void write_vkey_json<E>(const std::string&, const zk::VerifyingKey<E>&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_IO_JSON_EXTERN)
#undef SPLITPROVE_IO_JSON_EXTERN

}  // namespace splitprove::io
