// 127.0.0.1 for tests that talk to the processes they start: an address, and
// a port free now.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace vmafexact::test {

// 127.0.0.1:port (0: any free port, for bind).
inline sockaddr_in loopback_address(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// A TCP port on 127.0.0.1 that is free now (for a server the test starts).
inline int free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address = loopback_address(0);
  socklen_t length = sizeof address;
  const bool bound = bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
                     getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const std::string reason = std::strerror(errno);
  close(fd);
  if (!bound) throw std::runtime_error("no free port on 127.0.0.1: " + reason);
  return ntohs(address.sin_port);
}

}  // namespace vmafexact::test
