#include "cusparselt_probe.hpp"

#include <dlfcn.h>
#include <glob.h>
#include <sys/stat.h>

#include <cstdlib>
#include <vector>

namespace bench {

namespace {

const char* const kLibName = "libcusparseLt.so.0";

/// Python wheels put the library in site-packages/nvidia/cusparselt/lib (CUDA 12 wheels) or
/// site-packages/nvidia/cu13/lib (CUDA 13 wheels).
const char* const kWheelDirs[] = {"nvidia/cusparselt/lib", "nvidia/cu13/lib"};

std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// The first loader error of a candidate file that exists, for the "not found" line.
std::string g_first_error;

/// dlopens `path` and returns the file the loader actually mapped ("" if it did not load).
std::string try_load(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!h) {
    struct stat st {};
    const char* err = dlerror();
    if (g_first_error.empty() && path.find('/') != std::string::npos &&
        stat(path.c_str(), &st) == 0)
      g_first_error = path + ": " + (err ? err : "dlopen failed");
    return "";
  }
  std::string where = path;
  if (void* sym = dlsym(h, "cusparseLtInit")) {
    Dl_info info{};
    if (dladdr(sym, &info) && info.dli_fname) where = info.dli_fname;
  }
  // Kept loaded on purpose: the cusparselt baseline calls into it, and unloading CUDA libraries
  // during a run can be unsafe.
  return where;
}

std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("SPX_CUSPARSELT_PATH")) {
    std::string p = env;
    if (!p.empty()) c.push_back(is_dir(p) ? p + "/" + kLibName : p);
  }
  std::vector<std::string> prefixes = {
      "/opt/*/.venv/lib/python3*/site-packages", "/opt/*/lib/python3*/site-packages",
      "/usr/local/lib/python3*/dist-packages",   "/usr/local/lib/python3*/site-packages",
      "/usr/lib/python3/dist-packages",          "/usr/lib/python3*/site-packages"};
  if (const char* venv = std::getenv("VIRTUAL_ENV"))
    prefixes.insert(prefixes.begin(), std::string(venv) + "/lib/python3*/site-packages");
  if (const char* home = std::getenv("HOME"))
    prefixes.push_back(std::string(home) + "/.local/lib/python3*/site-packages");
  for (const std::string& prefix : prefixes)
    for (const char* dir : kWheelDirs)
      for (const std::string& p : glob_paths(prefix + "/" + dir + "/" + kLibName)) c.push_back(p);
  c.push_back(kLibName);  // LD_LIBRARY_PATH, ldconfig cache
  return c;
}

}  // namespace

std::string find_cusparselt() {
  for (const std::string& path : candidates()) {
    std::string loaded = try_load(path);
    if (!loaded.empty()) return loaded;
  }
  return "";
}

std::string cusparselt_status_line() {
  std::string path = find_cusparselt();
  if (path.empty() && !g_first_error.empty())
    return "cusparselt: not usable (" + g_first_error + ")";
  if (path.empty())
    return "cusparselt: not found (set SPX_CUSPARSELT_PATH to libcusparseLt.so.0 or its folder)";
  return "cusparselt: found at " + path;
}

}  // namespace bench
