//===- artifact.cpp - The compiled-program container ----------------------===//
//
// Header (32 bytes), section table (32 bytes per section), payloads at
// 16-byte aligned offsets; every integer little-endian (docs/artifact.md).
//
//===----------------------------------------------------------------------===//

#include "sluice/runtime/program/artifact.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace sluice::runtime {
namespace {

constexpr uint64_t kHeaderBytes = 32;
constexpr uint64_t kEntryBytes = 32;
// A bound on the section count, so a corrupt count cannot ask for a huge table.
constexpr uint32_t kMaxSections = 1024;

void putLE(std::vector<unsigned char> &out, uint64_t offset, uint64_t value,
           unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    out[offset + i] = (unsigned char)(value >> (8 * i));
}

uint64_t getLE(const unsigned char *data, unsigned bytes) {
  uint64_t value = 0;
  for (unsigned i = 0; i < bytes; ++i)
    value |= uint64_t(data[i]) << (8 * i);
  return value;
}

uint64_t alignUp(uint64_t value) {
  return (value + kArtifactSectionAlignment - 1) &
         ~(kArtifactSectionAlignment - 1);
}

Status invalid(const std::string &origin, const std::string &message) {
  return Status::error(ErrorKind::InvalidDescriptor,
                       origin + ": not a valid Sluice artifact: " + message);
}

} // namespace

Status writeArtifact(std::string_view descriptorJSON,
                     std::span<const ArtifactSection> sections,
                     std::vector<unsigned char> &out) {
  struct Piece {
    std::string_view name;
    const unsigned char *data;
    uint64_t size;
  };
  std::vector<Piece> pieces{
      {kDescriptorSection,
       reinterpret_cast<const unsigned char *>(descriptorJSON.data()),
       descriptorJSON.size()}};
  for (const ArtifactSection &section : sections) {
    if (section.name.empty() ||
        section.name.size() >= kArtifactSectionNameBytes)
      return Status::error(ErrorKind::InvalidArgument,
                           "artifact section name '" + section.name +
                               "' must have 1 to 15 bytes");
    for (const Piece &piece : pieces)
      if (piece.name == section.name)
        return Status::error(ErrorKind::InvalidArgument,
                             "artifact section '" + section.name +
                                 "' appears twice");
    pieces.push_back(
        {section.name, section.bytes.data(), uint64_t(section.bytes.size())});
  }

  uint64_t offset = alignUp(kHeaderBytes + kEntryBytes * pieces.size());
  std::vector<uint64_t> offsets;
  for (const Piece &piece : pieces) {
    offsets.push_back(offset);
    offset = alignUp(offset + piece.size);
  }
  out.assign(offset, 0);
  std::memcpy(out.data(), kArtifactMagic, sizeof(kArtifactMagic));
  putLE(out, 8, kArtifactFormatVersion, 4);
  putLE(out, 12, pieces.size(), 4);
  putLE(out, 16, SLUICE_KERNEL_ABI_VERSION, 4);
  for (size_t i = 0; i < pieces.size(); ++i) {
    uint64_t entry = kHeaderBytes + kEntryBytes * i;
    std::memcpy(out.data() + entry, pieces[i].name.data(),
                pieces[i].name.size());
    putLE(out, entry + 16, offsets[i], 8);
    putLE(out, entry + 24, pieces[i].size, 8);
    if (pieces[i].size)
      std::memcpy(out.data() + offsets[i], pieces[i].data, pieces[i].size);
  }
  return Status::success();
}

Status Artifact::read(std::vector<unsigned char> bytes, std::string origin,
                      Artifact &out) {
  Artifact artifact;
  artifact.origin_ = std::move(origin);
  artifact.bytes_ = std::move(bytes);
  const std::string &name = artifact.origin_;
  const std::vector<unsigned char> &data = artifact.bytes_;
  if (data.size() < kHeaderBytes ||
      std::memcmp(data.data(), kArtifactMagic, sizeof(kArtifactMagic)) != 0)
    return invalid(name, "it does not start with the artifact magic number "
                         "(is it a file written by `sluice-translate "
                         "--sluice-to-artifact`?)");
  uint32_t format = uint32_t(getLE(data.data() + 8, 4));
  if (format != kArtifactFormatVersion)
    return invalid(name, "format version " + std::to_string(format) +
                             ", but this runtime reads version " +
                             std::to_string(kArtifactFormatVersion));
  uint32_t count = uint32_t(getLE(data.data() + 12, 4));
  uint32_t abi = uint32_t(getLE(data.data() + 16, 4));
  if (abi != SLUICE_KERNEL_ABI_VERSION)
    return invalid(name, "kernel ABI version " + std::to_string(abi) +
                             ", but this runtime implements version " +
                             std::to_string(SLUICE_KERNEL_ABI_VERSION));
  if (count == 0 || count > kMaxSections ||
      kHeaderBytes + kEntryBytes * uint64_t(count) > data.size())
    return invalid(name, "section count " + std::to_string(count) +
                             " does not fit its " +
                             std::to_string(data.size()) + " bytes");
  for (uint32_t i = 0; i < count; ++i) {
    const unsigned char *entry = data.data() + kHeaderBytes + kEntryBytes * i;
    const char *text = reinterpret_cast<const char *>(entry);
    size_t length = strnlen(text, kArtifactSectionNameBytes);
    if (length == 0 || length == kArtifactSectionNameBytes)
      return invalid(name, "section #" + std::to_string(i) +
                               " has no NUL-terminated name");
    std::string sectionName(text, length);
    Range range{getLE(entry + 16, 8), getLE(entry + 24, 8)};
    if (range.offset > data.size() || range.size > data.size() - range.offset)
      return invalid(name, "section '" + sectionName + "' (offset " +
                               std::to_string(range.offset) + ", " +
                               std::to_string(range.size) +
                               " bytes) lies beyond the end of its " +
                               std::to_string(data.size()) + " bytes");
    if (!artifact.sections_.emplace(sectionName, range).second)
      return invalid(name, "section '" + sectionName + "' appears twice");
  }
  if (!artifact.hasSection(kDescriptorSection))
    return invalid(name, "it has no 'descriptor' section");
  std::span<const unsigned char> descriptor =
      artifact.section(kDescriptorSection);
  if (Status status = parseDescriptor(
          std::string_view(reinterpret_cast<const char *>(descriptor.data()),
                           descriptor.size()),
          name, artifact.program_);
      !status.ok())
    return status;
  for (const auto &[backend, entry] : artifact.program_.backends)
    if (!artifact.hasSection(entry.section))
      return invalid(name, "backend '" + backend + "' names section '" +
                               entry.section + "', which it does not have");
  out = std::move(artifact);
  return Status::success();
}

Status Artifact::readFile(const std::string &path, Artifact &out) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status::error(ErrorKind::InvalidArgument,
                         "cannot open " + path + ": " + std::strerror(errno));
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(file)),
                                   std::istreambuf_iterator<char>());
  if (file.bad())
    return Status::error(ErrorKind::InvalidArgument,
                         "cannot read " + path + ": " + std::strerror(errno));
  return read(std::move(bytes), path, out);
}

std::span<const unsigned char>
Artifact::section(std::string_view name) const {
  auto found = sections_.find(name);
  if (found == sections_.end())
    return {};
  return {bytes_.data() + found->second.offset, found->second.size};
}

bool Artifact::hasSection(std::string_view name) const {
  return sections_.find(name) != sections_.end();
}

Status Artifact::backend(std::string_view name,
                         const CompiledBackend *&out) const {
  auto found = program_.backends.find(name);
  if (found != program_.backends.end()) {
    out = &found->second;
    return Status::success();
  }
  std::string have;
  for (const auto &[backend, entry] : program_.backends)
    have += (have.empty() ? "" : ", ") + backend;
  return Status::error(ErrorKind::InvalidArgument,
                       origin_ + " holds no kernels for backend '" +
                           std::string(name) + "' (it has: " +
                           (have.empty() ? "none" : have) + ")");
}

} // namespace sluice::runtime
