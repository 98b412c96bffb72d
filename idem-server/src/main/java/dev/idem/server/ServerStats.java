package dev.idem.server;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The counters of INFO and the Prometheus endpoint. Counted on the event loop; read from other
 * threads (a scrape), which may see a value a moment old.
 */
final class ServerStats {
  final long startMillis = System.currentTimeMillis();
  final AtomicInteger connected = new AtomicInteger();
  final AtomicLong connectionsReceived = new AtomicLong();
  final AtomicLong rejectedConnections = new AtomicLong();
  final AtomicLong clientIds = new AtomicLong();
  long commands;
  long errors;
  long protocolErrors;
  long bytesIn;
  long bytesOut;
  long idsChecked;
  long idsNew;
  long idemCommits;
  long filterAdds;
  long filterChecks;
}
