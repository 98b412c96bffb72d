package dev.idem.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;

/**
 * One client connection, on the event loop: bytes in, parsed ({@link RespParser}) and each request
 * carried out at once ({@link Commands}), its reply appended to one output buffer that is written
 * and flushed when the read is done, so a pipeline's replies leave together.
 *
 * <p>What one client can make the server hold is bounded: its request being read (the parser's
 * limits), and its replies not yet taken by the socket. When those pass the channel's high-water
 * mark, or half of {@code maxPipeline} replies, the server stops reading from it until the client
 * reads (TCP pushes back); a command past {@code maxPipeline} waiting replies gets an error instead
 * of running; a client whose waiting replies pass {@code maxOutput} bytes is disconnected.
 */
final class ClientHandler extends ChannelInboundHandlerAdapter {

  /** Limits of a client that has not authenticated yet, as Redis's. */
  static final int UNAUTHENTICATED_ARGUMENTS = 10;

  static final int UNAUTHENTICATED_BULK = 16 * 1024;

  private static final int EARLY_WRITE = 64 * 1024;

  private final ServerConfig config;
  private final Commands commands;
  private final ServerStats stats;
  private final Session session;
  private final RespParser parser;
  private ByteBuf cumulation;
  private ByteBuf out;
  private long repliesInOut;

  /** Replies written to the channel but not yet taken by the socket. */
  private long unsent;

  private boolean closing;

  ClientHandler(ServerConfig config, Commands commands, ServerStats stats, Session session) {
    this.config = config;
    this.commands = commands;
    this.stats = stats;
    this.session = session;
    this.parser =
        session.authenticated
            ? new RespParser(config.maxArguments(), config.maxBulk(), config.maxRequest())
            : new RespParser(UNAUTHENTICATED_ARGUMENTS, UNAUTHENTICATED_BULK, 1 << 20);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    stats.bytesIn += in.readableBytes();
    if (closing) {
      in.release();
      return;
    }
    cumulation =
        cumulation == null
            ? in
            : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), cumulation, in);
    process(ctx);
  }

  private void process(ChannelHandlerContext ctx) {
    while (!closing && cumulation != null) {
      byte[][] args;
      try {
        args = parser.next(cumulation);
      } catch (ProtocolException e) {
        stats.protocolErrors++;
        reply().error(e.getMessage());
        session.reply.done();
        repliesInOut++;
        closing = true;
        break;
      }
      if (args == null) {
        break;
      }
      if (args.length == 0) {
        continue;
      }
      Reply r = reply();
      long before = r.count();
      boolean wasAuthenticated = session.authenticated;
      if (unsent + repliesInOut >= config.maxPipeline()) {
        stats.errors++;
        r.error(
            "ERR max pipeline depth reached: "
                + config.maxPipeline()
                + " commands await their replies; read them before sending more");
        r.done();
      } else {
        int errorsAt = out.writerIndex();
        commands.execute(session, args);
        if (out.writerIndex() > errorsAt && out.getByte(errorsAt) == '-') {
          stats.errors++;
        }
      }
      repliesInOut += r.count() - before;
      if (!wasAuthenticated && session.authenticated) {
        parser.limits(config.maxArguments(), config.maxBulk(), config.maxRequest());
      }
      if (session.closeAfterReply) {
        closing = true;
      }
      if (pendingBytes(ctx) + out.readableBytes() > config.maxOutput()) {
        System.err.println(
            "idem serve: disconnected client "
                + session.address
                + ": its unread replies passed "
                + config.maxOutput()
                + " bytes (--max-output)");
        release();
        ctx.close();
        return;
      }
      if (out.readableBytes() >= EARLY_WRITE) {
        write(ctx, false);
      }
    }
    if (cumulation != null) {
      if (!cumulation.isReadable()) {
        cumulation.release();
        cumulation = null;
      } else {
        cumulation.discardSomeReadBytes();
      }
    }
    if (closing) {
      write(ctx, true);
    }
  }

  private Reply reply() {
    if (out == null) {
      out = Unpooled.buffer(256);
      session.reply.target(out);
    }
    return session.reply;
  }

  private static long pendingBytes(ChannelHandlerContext ctx) {
    ChannelOutboundBuffer b = ctx.channel().unsafe().outboundBuffer();
    return b == null ? 0 : b.totalPendingWriteBytes();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    write(ctx, true);
    if (!ctx.channel().isWritable() || unsent >= config.maxPipeline() / 2) {
      ctx.channel().config().setAutoRead(false);
    }
  }

  private void write(ChannelHandlerContext ctx, boolean flush) {
    if (out != null && out.isReadable()) {
      long n = repliesInOut;
      stats.bytesOut += out.readableBytes();
      unsent += n;
      ByteBuf b = out;
      out = null;
      repliesInOut = 0;
      var f = flush ? ctx.writeAndFlush(b) : ctx.write(b);
      f.addListener(
          future -> {
            unsent -= n;
            resumeIfDrained(ctx);
          });
      if (closing) {
        f.addListener(ChannelFutureListener.CLOSE);
      }
    } else if (flush) {
      if (closing) {
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
      } else {
        ctx.flush();
      }
    }
  }

  private void resumeIfDrained(ChannelHandlerContext ctx) {
    if (!closing
        && !ctx.channel().config().isAutoRead()
        && ctx.channel().isWritable()
        && unsent < config.maxPipeline() / 2) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    resumeIfDrained(ctx);
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    release();
    stats.connected.decrementAndGet();
  }

  private void release() {
    if (cumulation != null) {
      cumulation.release();
      cumulation = null;
    }
    if (out != null) {
      out.release();
      out = null;
    }
    closing = true;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    ctx.close(); // a reset connection; nothing to tell anyone
  }

  /** The reply of a connection refused for the connection limit. */
  static ByteBuf tooManyClients() {
    return Unpooled.copiedBuffer("-ERR max number of clients reached\r\n", StandardCharsets.UTF_8);
  }
}
