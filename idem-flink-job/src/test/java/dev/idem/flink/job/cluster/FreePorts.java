package dev.idem.flink.job.cluster;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Ports free on the loopback interface now (another process may take one later: rare). */
final class FreePorts {
  private FreePorts() {}

  static int pick() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }
}
