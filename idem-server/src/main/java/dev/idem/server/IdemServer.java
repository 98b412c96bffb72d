package dev.idem.server;

import dev.idem.engine.MetricsEndpoint;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code idem serve}: the durable seen-set over the Redis protocol. One event loop thread reads
 * every connection and carries out every command in arrival order, as Redis does; a second thread
 * writes filter snapshots. {@link #start} opens the state directory and listens; {@link #shutdown}
 * stops gracefully (snapshots of changed filters, IDEM key spaces closed), as SIGTERM and the
 * {@code SHUTDOWN} command do.
 */
public final class IdemServer implements AutoCloseable {

  private final ServerConfig config;
  private final Keyspace keys;
  private final ServerStats stats = new ServerStats();
  private final EventLoopGroup group;
  private final EventLoop loop;
  private final ChannelGroup clients;
  private final ScheduledExecutorService snapshots;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private Channel listener;
  private MetricsEndpoint metrics;
  private volatile Throwable shutdownFailure;

  private IdemServer(ServerConfig config, Keyspace keys) {
    this.config = config;
    this.keys = keys;
    this.group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    this.loop = group.next();
    this.clients = new DefaultChannelGroup(loop);
    this.snapshots =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "idem-serve-snapshots");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Opens the state directory and listens.
   *
   * @throws IllegalArgumentException for an address beyond loopback without a password
   * @throws IOException when the directory is in use or damaged, or the port cannot be bound
   */
  public static IdemServer start(ServerConfig config) throws IOException {
    requireSafeBind(config);
    Keyspace keys = Keyspace.open(config);
    IdemServer server = new IdemServer(config, keys);
    try {
      server.listen();
    } catch (IOException | RuntimeException e) {
      server.group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
      keys.closeAll();
      keys.unlock();
      throw e;
    }
    return server;
  }

  /** Loopback unless a password guards the server. */
  static void requireSafeBind(ServerConfig config) throws IOException {
    InetAddress address;
    try {
      address = InetAddress.getByName(config.bind());
    } catch (UnknownHostException e) {
      throw new IOException("cannot listen on '" + config.bind() + "': no such address", e);
    }
    if (!address.isLoopbackAddress() && config.password() == null) {
      throw new IllegalArgumentException(
          "--bind "
              + config.bind()
              + " accepts connections from other machines: give --requirepass too (clients"
              + " then AUTH), or bind to 127.0.0.1");
    }
  }

  private void listen() throws IOException {
    keys.eventLoop(loop);
    Commands commands = new Commands(config, keys, stats, this::shutdownAsync);
    ServerBootstrap b =
        new ServerBootstrap()
            .group(group)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 1024)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(512 * 1024, 1024 * 1024))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    stats.connectionsReceived.incrementAndGet();
                    if (stats.connected.incrementAndGet() > config.maxConnections()) {
                      stats.connected.decrementAndGet();
                      stats.rejectedConnections.incrementAndGet();
                      ch.writeAndFlush(ClientHandler.tooManyClients())
                          .addListener(ChannelFutureListener.CLOSE);
                      return;
                    }
                    clients.add(ch);
                    Session s =
                        new Session(
                            stats.clientIds.incrementAndGet(),
                            String.valueOf(ch.remoteAddress()).replace("/", ""),
                            config.password() == null);
                    ch.pipeline().addLast(new ClientHandler(config, commands, stats, s));
                  }
                });
    try {
      listener = b.bind(config.bind(), config.port()).sync().channel();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while binding", e);
    } catch (Exception e) { // Netty rethrows the bind's checked exception unchecked
      throw new IOException(
          "cannot listen on " + config.bind() + ":" + config.port() + ": " + e.getMessage(), e);
    }
    long every = config.saveEvery().toMillis();
    snapshots.scheduleWithFixedDelay(keys::saveChanged, every, every, TimeUnit.MILLISECONDS);
    if (config.metricsPort() >= 0) {
      metrics =
          MetricsEndpoint.builder()
              .counter("idem_server_commands", "Commands carried out", () -> stats.commands)
              .counter(
                  "idem_server_connections",
                  "Connections accepted",
                  () -> stats.connectionsReceived.get())
              .counter(
                  "idem_server_rejected_connections",
                  "Connections refused at the limit",
                  () -> stats.rejectedConnections.get())
              .counter("idem_server_errors", "Error replies", () -> stats.errors)
              .counter(
                  "idem_server_protocol_errors",
                  "Requests that broke the protocol or a limit",
                  () -> stats.protocolErrors)
              .counter(
                  "idem_server_ids_checked", "Ids given to IDEM commands", () -> stats.idsChecked)
              .counter("idem_server_ids_new", "Ids that were new", () -> stats.idsNew)
              .counter("idem_server_commits", "IDEM.COMMITs", () -> stats.idemCommits)
              .counter("idem_server_filter_adds", "BF and CF items added", () -> stats.filterAdds)
              .counter(
                  "idem_server_snapshots", "Filter snapshots written", () -> keys.snapshotsWritten)
              .start("127.0.0.1", config.metricsPort());
    }
  }

  /** The port it listens on (the one chosen, for port 0). */
  public int port() {
    return ((InetSocketAddress) listener.localAddress()).getPort();
  }

  /** The Prometheus endpoint's port, or -1. */
  public int metricsPort() {
    return metrics == null ? -1 : metrics.port();
  }

  /** Keys held now. */
  public int keyCount() {
    try {
      return loop.submit(keys::size).get();
    } catch (Exception e) {
      return -1;
    }
  }

  /** Waits until the server has stopped (SHUTDOWN, {@link #shutdown}). */
  public void awaitTermination() throws InterruptedException {
    stopped.await();
  }

  /** The failure of the last shutdown step that failed, or {@code null}. */
  public Throwable shutdownFailure() {
    return shutdownFailure;
  }

  private void shutdownAsync() {
    Thread t = new Thread(this::shutdown, "idem-serve-shutdown");
    t.start();
  }

  /**
   * Stops gracefully and waits for it: no new connections, clients closed, every changed filter
   * snapshotted, the IDEM key spaces closed (committed when their client never commits with a
   * token; else their marks since the last commit are dropped, as a crash drops them), the
   * directory released. Call from any thread but the event loop; a second call waits for the first.
   */
  public void shutdown() {
    if (!stopping.compareAndSet(false, true)) {
      try {
        stopped.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return;
    }
    try {
      if (listener != null) {
        listener.close().syncUninterruptibly();
      }
      clients.close().awaitUninterruptibly();
      snapshots.shutdown();
      snapshots.awaitTermination(10, TimeUnit.MINUTES);
      keys.saveChanged();
      loop.submit(keys::closeAll).get();
    } catch (Exception e) {
      shutdownFailure = e;
      System.err.println("idem serve: stopping: " + e);
    } finally {
      group.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly();
      if (metrics != null) {
        metrics.close();
      }
      try {
        keys.unlock();
      } catch (IOException e) {
        shutdownFailure = e;
      }
      stopped.countDown();
    }
  }

  @Override
  public void close() {
    shutdown();
  }
}
