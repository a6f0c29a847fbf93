// SPDX-License-Identifier: MIT OR Apache-2.0
// The test stdlib.expected (impl/tests/cmake/bcast_testing.cmake): prints the
// standard library this binary, which includes all of bcast, was compiled
// against, and fails unless it is the one named on the command line.
#include <bcast/bcast.hpp>

#include <cstdio>
#include <cstring>
#include <version>

int main(int argc, char** argv) {
#if defined(_LIBCPP_VERSION)
    const char* const name = "libc++";
    const long version = _LIBCPP_VERSION;
#elif defined(__GLIBCXX__)
    const char* const name = "libstdc++";
    const long version = __GLIBCXX__;
#else
    const char* const name = "unknown";
    const long version = 0;
#endif
    auto [tx, rx] = bcast::channel<int>(1); // and it runs
    const bool sent = tx.try_broadcast(1).has_value();
    const auto got = rx.try_recv();
    std::printf("standard library: %s %ld\n", name, version);
    if (!sent || !got.has_value() || *got != 1) {
        std::puts("bcast: a message did not arrive");
        return 1;
    }
    if (argc < 2 || std::strcmp(argv[1], name) != 0) {
        std::printf("expected: %s\n", argc < 2 ? "(nothing given)" : argv[1]);
        return 1;
    }
    return 0;
}
