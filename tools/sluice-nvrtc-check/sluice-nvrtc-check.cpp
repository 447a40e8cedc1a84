//===- sluice-nvrtc-check.cpp - Compile a .hip file with NVRTC ------------===//
//
// sluice-nvrtc-check [--arch=sm_90] [-I dir ...] FILE: compiles the HIP C++
// that --sluice-to-hip prints with NVRTC, loaded with dlopen from
// $SLUICE_NVRTC (the library itself), else $CUDA_HOME/lib64 or
// /usr/local/cuda/lib64 (no CUDA headers or libraries
// are needed to build it), and prints the compile log. Exit status: 0 when
// it compiles, 1 when it does not, 2 when NVRTC is not found (`--probe`
// only looks for it). A test tool: lit's `nvrtc` feature.
//
//===----------------------------------------------------------------------===//

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using nvrtcProgram = struct _nvrtcProgram *;
using CreateFn = int (*)(nvrtcProgram *, const char *, const char *, int,
                         const char *const *, const char *const *);
using CompileFn = int (*)(nvrtcProgram, int, const char *const *);
using LogSizeFn = int (*)(nvrtcProgram, size_t *);
using LogFn = int (*)(nvrtcProgram, char *);
using DestroyFn = int (*)(nvrtcProgram *);
using ErrorStringFn = const char *(*)(int);

void *openNVRTC(std::string &tried) {
  if (const char *exact = std::getenv("SLUICE_NVRTC")) {
    tried = exact;
    return dlopen(exact, RTLD_NOW | RTLD_LOCAL);
  }
  std::vector<std::string> dirs;
  if (const char *home = std::getenv("CUDA_HOME"))
    dirs.push_back(std::string(home) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  for (const std::string &dir : dirs)
    for (const char *name :
         {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"}) {
      std::string path = dir + "/" + name;
      tried += (tried.empty() ? "" : ", ") + path;
      if (void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))
        return handle;
    }
  return nullptr;
}

} // namespace

int main(int argc, char **argv) {
  std::string arch = "sm_90", file;
  std::vector<std::string> options;
  bool probe = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--arch=", 0) == 0)
      arch = arg.substr(7);
    else if (arg == "--probe")
      probe = true;
    else if (arg == "-I" && i + 1 < argc)
      options.push_back(std::string("-I") + argv[++i]);
    else if (arg.rfind("-I", 0) == 0)
      options.push_back(arg);
    else
      file = arg;
  }
  std::string tried;
  void *nvrtc = openNVRTC(tried);
  if (!nvrtc) {
    std::cerr << "sluice-nvrtc-check: libnvrtc not found (tried " << tried
              << ")\n";
    return 2;
  }
  if (probe)
    return 0;
  if (file.empty()) {
    std::cerr << "usage: sluice-nvrtc-check [--arch=sm_90] [-I dir] FILE\n";
    return 1;
  }
  auto create = reinterpret_cast<CreateFn>(dlsym(nvrtc, "nvrtcCreateProgram"));
  auto compile =
      reinterpret_cast<CompileFn>(dlsym(nvrtc, "nvrtcCompileProgram"));
  auto logSize =
      reinterpret_cast<LogSizeFn>(dlsym(nvrtc, "nvrtcGetProgramLogSize"));
  auto getLog = reinterpret_cast<LogFn>(dlsym(nvrtc, "nvrtcGetProgramLog"));
  auto destroy =
      reinterpret_cast<DestroyFn>(dlsym(nvrtc, "nvrtcDestroyProgram"));
  auto errorString =
      reinterpret_cast<ErrorStringFn>(dlsym(nvrtc, "nvrtcGetErrorString"));
  if (!create || !compile || !logSize || !getLog || !destroy || !errorString) {
    std::cerr << "sluice-nvrtc-check: libnvrtc lacks the nvrtc* entry points\n";
    return 2;
  }
  std::ifstream in(file);
  if (!in) {
    std::cerr << "sluice-nvrtc-check: cannot read " << file << "\n";
    return 1;
  }
  std::stringstream source;
  source << in.rdbuf();
  std::string text = source.str();

  nvrtcProgram program = nullptr;
  if (int status =
          create(&program, text.c_str(), file.c_str(), 0, nullptr, nullptr)) {
    std::cerr << "sluice-nvrtc-check: nvrtcCreateProgram: "
              << errorString(status) << "\n";
    return 1;
  }
  options.insert(options.begin(), "--gpu-architecture=" + arch);
  std::vector<const char *> raw;
  for (const std::string &option : options)
    raw.push_back(option.c_str());
  int status = compile(program, static_cast<int>(raw.size()), raw.data());
  size_t size = 0;
  logSize(program, &size);
  std::string log(size, '\0');
  if (size > 0)
    getLog(program, log.data());
  if (size > 1)
    std::cout << log.c_str() << (log.c_str()[0] ? "\n" : "");
  destroy(&program);
  if (status != 0) {
    std::cerr << "sluice-nvrtc-check: " << file << " does not compile for "
              << arch << ": " << errorString(status) << "\n";
    return 1;
  }
  std::cout << "sluice-nvrtc-check: " << file << " compiles for " << arch
            << "\n";
  return 0;
}
