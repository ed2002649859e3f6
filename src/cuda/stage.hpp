#pragma once
// The pipeline's GPU stage and G2 stage on the CUDA backend (DESIGN §3), and their registration
// with the backend registry of src/pipeline (pipeline/backend.hpp), for every engine (BLS12-381
// and BN254: the same code over the curve's device kernels). CUDA-free header.
//
// One Gpu per device, shared by both curves: a device MemoryBudget (capacity: the free bytes when
// it is made, less a margin for the context and the runtime), one DevicePool reused by every
// partition, the NTT domains by curve and size, and the resident proving keys of either curve.
//
// Resident key. The first partition proved with a key uploads the key's point vectors (A, B1, L,
// H; the compact B2 bases when the G2 stage is on the GPU) once, booked under tag srs in the device
// budget; every later partition and job of that key uses them. The entry is dropped when the key
// dies (it is found again only while the key's shared_ptr is alive), on evict(), or when the Gpu
// dies. A key whose points do not fit beside the working memory of the GPU workers is streamed
// instead: each MSM uploads its bases, runs, and gives the block back (slower, same results).
//
// GPU stage, per partition: a, b are uploaded and freed on the host as soon as they are on the
// device; c = a∘b is formed there (FrNtt::product: the host never holds c); the H step
// (FrNtt::ab_minus_c_on_odd_coset, or FrNtt::h_coefficients for keys with the monomial H basis)
// leaves the H scalars in place of a; the H MSM runs and the device a, b, c go back to the pool; z is uploaded and freed on the host; the A,
// B1 and L MSMs run on the resident points with the 0/1/tail split. Each call has its own stream, so
// several GPU workers can share the device.
#include <cstdint>
#include <memory>
#include <string>

#include "pipeline/backend.hpp"
#include "ec/curves.hpp"

namespace splitprove::cuda {

class Gpu;

struct GpuOptions {
  int device = 0;
  // Device budget: 0 = the device's free bytes at start less `margin`.
  std::uint64_t budget_bytes = 0;
  std::uint64_t margin = std::uint64_t(2) << 30;
  // GPU workers that will share the device (the resident-key fit check leaves room for each).
  unsigned workers = 1;
  // Forces streaming of the key's points (tests of the fallback).
  bool never_resident = false;
  // The pipeline's name of this Gpu (its budget's and its DeviceState's): "" = "gpu<device>"; a
  // logical share of a device is "gpu<device>.<i>".
  std::string name;
  // One stage's kernels at a time: the GPU stage's (from c = a∘b to the last MSM over z) and a G2
  // MSM's take turns (Gpu::compute_turn) instead of sharing the SMs, while copies still overlap
  // them. Off (they run side by side) until turning it on has passed the GPU tests: on an H200
  // (c81c9fb, bench/RESULTS.md) it tied at 2^24 (the turn's wait takes what the kernels' solo
  // speed saves) and was 2.5 % faster at 2^27. SPLITPROVE_GPU_SERIAL=1 turns it on.
  bool serial_compute = serial_compute_from_env();
  static bool serial_compute_from_env();
};

// Makes the per-device state. Throws Error when the device cannot be used.
std::shared_ptr<Gpu> open_gpu(const GpuOptions& opts = {});

// The stages on `gpu` for engine E (ec::Bls12_381 or ec::Bn254). The G2 stage's resident B2
// bases are uploaded with the key the first time a G2 stage asks for them.
template <class E>
std::shared_ptr<pipeline::GpuStage<E>> gpu_stage(std::shared_ptr<Gpu> gpu);
template <class E>
std::shared_ptr<pipeline::G2Stage<E>> g2_stage(std::shared_ptr<Gpu> gpu);

// What a Gpu reports (for tests, benchmarks, the timeline).
struct GpuReport {
  std::string device;                 // name, e.g. "NVIDIA H200"
  std::uint64_t budget_capacity = 0;  // device budget
  std::uint64_t budget_used = 0, budget_peak = 0;
  std::uint64_t srs_bytes = 0;  // the budget's srs tag: resident key points and NTT twiddles
  std::uint64_t key_bytes = 0;  // the resident keys' points alone
  std::size_t resident_keys = 0, streamed_keys = 0, key_uploads = 0, mallocs = 0;
  // Wall seconds spent making the points of keys made on the device (--key-on device), summed.
  double key_make_s = 0;
};
GpuReport report(const Gpu& gpu);
// Drops the resident points of `pk`; their device bytes go back to the budget. Only between runs:
// a partition in flight keeps what it already took.
template <class E>
void evict(Gpu& gpu, const zk::ProvingKey<E>* pk);
// Drops every resident key (both curves) and the NTT twiddles.
void evict(Gpu& gpu);
// Device-memory sources for the sampler: "gpuN" (cudaMemGetInfo: in use on the device) and
// "gpuN_books" (the device budget's books).
std::vector<std::pair<std::string, mem::DeviceMemorySource>> memory_sources(
    std::shared_ptr<Gpu> gpu);

// Registers the CUDA backend with pipeline::register_device_backend for every engine: on request
// it opens the devices asked for (BackendRequest::devices, default every visible one), each split
// into BackendRequest::logical_devices Gpus with an equal share of its free memory, once per
// process (later requests, of either curve, share them while any holds them), and returns one set
// of stages per Gpu, or says why it cannot.
void install_pipeline_backend();

}  // namespace splitprove::cuda
