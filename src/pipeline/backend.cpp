#include "pipeline/backend.hpp"

#include <fmt/format.h>

#include <mutex>

#include "splitprove/error.hpp"
#include "ec/curves.hpp"

namespace splitprove::pipeline {

void BackendRequest::check() const {
  if (backend != "auto" && backend != "cpu" && backend != "cuda")
    throw Error(fmt::format("backend '{}': expected auto, cpu or cuda", backend));
  if (g2_on != "auto" && g2_on != "cpu" && g2_on != "gpu")
    throw Error(fmt::format("g2 placement '{}': expected auto, cpu or gpu", g2_on));
  if (backend == "cpu" && g2_on == "gpu")
    throw Error("--g2-on gpu needs a device backend (the backend is cpu)");
}

template <class E>
std::string Backend<E>::describe() const {
  return fmt::format("{} (G1/H stage: {}, G2 stage: {}){}", name, gpu ? gpu->name() : "-",
                     g2 ? g2->name() : "-", detail.empty() ? "" : ", " + detail);
}

namespace {

template <class E>
struct Registry {
  std::mutex mu;
  std::string name;
  BackendProvider<E> provider;
  static Registry& get() {
    static Registry r;
    return r;
  }
};

}  // namespace

template <class E>
void register_device_backend(std::string name, BackendProvider<E> provider) {
  auto& r = Registry<E>::get();
  std::lock_guard lk(r.mu);
  r.name = std::move(name);
  r.provider = std::move(provider);
}

template <class E>
Backend<E> make_backend(const BackendRequest& req) {
  req.check();
  Backend<E> cpu;
  cpu.gpu = cpu_gpu_stage<E>();
  cpu.g2 = cpu_g2_stage<E>();
  if (req.backend == "cpu") {
    cpu.detail = "asked for";
    return cpu;
  }
  auto& r = Registry<E>::get();
  BackendProvider<E> provider;
  std::string name;
  {
    std::lock_guard lk(r.mu);
    provider = r.provider;
    name = r.name;
  }
  std::string why = "this build has no device backend";
  if (provider) {
    why.clear();
    if (auto b = provider(req, &why)) return std::move(*b);
    if (why.empty()) why = name + ": no device";
  }
  if (req.backend == "cuda") throw Error("backend cuda is not available: " + why);
  if (req.g2_on == "gpu") throw Error("--g2-on gpu needs a device backend: " + why);
  cpu.detail = "no device backend (" + why + ")";
  return cpu;
}

#define SPLITPROVE_BACKEND_INSTANTIATE(E)                                    \
  template struct Backend<E>;                                                \
  template void register_device_backend<E>(std::string, BackendProvider<E>); \
  template Backend<E> make_backend<E>(const BackendRequest&);
SPLITPROVE_FOR_EACH_ENGINE(SPLITPROVE_BACKEND_INSTANTIATE)
#undef SPLITPROVE_BACKEND_INSTANTIATE

}  // namespace splitprove::pipeline
