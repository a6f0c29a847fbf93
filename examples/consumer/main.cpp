// SPDX-License-Identifier: MIT OR Apache-2.0
// Built by the package tests (label "package") against an installed, vendored,
// fetched or Debian-packaged bcast, with CMake or with pkg-config:
//   c++ -std=c++20 main.cpp $(pkg-config --cflags --libs bcast) -DBCAST_CONSUMER_EXPECTED_VERSION='"0.1.0"'
#include <bcast/bcast.hpp>

#include <cstdio>
#include <string_view>
#include <thread>

#ifndef BCAST_CONSUMER_EXPECTED_VERSION
#error "define BCAST_CONSUMER_EXPECTED_VERSION: the version the package says it is, as a string literal"
#endif
static_assert(std::string_view{BCAST_VERSION_STRING} == BCAST_CONSUMER_EXPECTED_VERSION,
              "the headers' BCAST_VERSION_STRING differs from the package's version");

int main() {
    auto [tx, rx] = bcast::channel<int>(1);
    bool sent = false;
    std::thread sender([&sent, tx = std::move(tx)] { sent = static_cast<bool>(tx.broadcast(42)); }); // -pthread / Threads::Threads
    auto got = rx.recv();
    sender.join();
    if (!sent || !got || *got != 42) return 1;
    std::printf("bcast %s (%d): received %d\n", BCAST_VERSION_STRING, BCAST_VERSION, *got);
    return 0;
}
