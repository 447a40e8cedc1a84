//===- printf_buffer.h - Printing the gpu.printf records of a launch -----===//
//
// Host code compiled by sluice-lower-gpu-printf allocates a record buffer
// (include/sluice/ABI/PrintfABI.h) for each launch of a kernel that prints,
// passes it as the kernel's last operand and, after the launch, calls
// sluice_rt_printf_flush, which prints the records to stdout ordered by
// (block linear id, thread linear id), each thread's in call order, and the
// count of dropped records to stderr. No MLIR dependency.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_RUNTIME_LAUNCH_PRINTF_BUFFER_H
#define SLUICE_RUNTIME_LAUNCH_PRINTF_BUFFER_H

#include <cstdint>
#include <string>

extern "C" {

/// Words of the record area of each launch's buffer: $SLUICE_PRINTF_WORDS
/// if it is a number from 0 to 2^30, else printf_abi::kDefaultCapacityWords.
int64_t sluice_rt_printf_capacity(void);

/// Prints the records of `buffer` (a memref<?xi32> descriptor, as the LLVM
/// lowering of a func.call passes it) with the format table `formats`.
void sluice_rt_printf_flush(int32_t *allocated, int32_t *aligned,
                            int64_t offset, int64_t size, int64_t stride,
                            const char *formats);
}

namespace sluice::runtime {

/// The text sluice_rt_printf_flush prints for `words` (header included);
/// `dropped` gets the header's dropped count. Returns false with `error` set
/// if the buffer is malformed.
bool formatPrintfRecords(const int32_t *words, int64_t totalWords,
                         const char *formats, std::string &text,
                         uint64_t &dropped, std::string &error);

} // namespace sluice::runtime

#endif // SLUICE_RUNTIME_LAUNCH_PRINTF_BUFFER_H
