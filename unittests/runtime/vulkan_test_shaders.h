//===- vulkan_test_shaders.h - The Vulkan tests' SPIR-V shaders -*- C++ -*-===//
//
// The shaders assembled from unittests/runtime/vulkan/*.spvasm at build time
// (SLUICE_VULKAN_TEST_SHADER_DIR), for every Vulkan test file.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_UNITTESTS_RUNTIME_VULKAN_TEST_SHADERS_H
#define SLUICE_UNITTESTS_RUNTIME_VULKAN_TEST_SHADERS_H

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

// The words of test shader `name` (a failed expectation if it is missing).
inline std::vector<uint32_t> loadShader(const std::string &name) {
  std::string path =
      std::string(SLUICE_VULKAN_TEST_SHADER_DIR) + "/" + name + ".spv";
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  EXPECT_TRUE(file.good()) << "cannot open " << path;
  std::streamsize bytes = file.tellg();
  file.seekg(0);
  std::vector<uint32_t> words(static_cast<size_t>(bytes) / 4);
  file.read(reinterpret_cast<char *>(words.data()), bytes);
  return words;
}

#endif // SLUICE_UNITTESTS_RUNTIME_VULKAN_TEST_SHADERS_H
