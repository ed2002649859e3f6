// `splitprove info`: the build's configuration and the GPUs it can use.
#include <cstdio>
#include <string>

#include "cli/command.hpp"
#include "ff/lanes.hpp"
#ifdef SPLITPROVE_HAVE_CUDA
#include "cuda/device.hpp"
#endif

namespace splitprove::cli {
namespace {

void run_info() {
  std::printf("splitprove 0.1.0\n");
  // The field kernels this build compiled in (-march=native picks them for the build machine).
  std::printf("cpu field products: %s%s\n",
              SPLITPROVE_ADX ? "mulx/adcx/adox (x86-64 BMI2+ADX)" : "portable C++",
              SPLITPROVE_IFMA ? "; batch work eight at a time with AVX-512 IFMA" : "");
#ifdef SPLITPROVE_HAVE_CUDA
  std::string why;
  auto devs = cuda::list_devices(&why);
  if (devs.empty()) std::printf("cuda: built (sm_90a); no GPU usable: %s\n", why.c_str());
  for (auto& d : devs)
    std::printf("cuda: device %d: %s, sm_%d%d, %d SMs, %.1f GiB (%.1f GiB free)\n", d.index,
                d.name.c_str(), d.sm_major, d.sm_minor, d.multiprocessors,
                double(d.total_bytes) / (1 << 30), double(d.free_bytes) / (1 << 30));
#else
  std::printf("cuda: not built (no nvcc at configure time)\n");
#endif
}

Register reg([](CLI::App& app) {
  app.add_subcommand("info", "Print the build configuration and the GPUs present")
      ->callback(run_info);
});

}  // namespace
}  // namespace splitprove::cli
