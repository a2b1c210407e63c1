package concbench.spring.webflux;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.springframework.boot.web.embedded.netty.NettyServerCustomizer;
import org.springframework.stereotype.Component;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * Works around reactor-netty#4361 in Reactor Netty 1.2.18 (the version Spring Boot 3.5.16 pins;
 * no later 1.2.x exists): a keep-alive connection can stop reading for good. Boot 3.5 only
 * (src/boot3/java): Reactor Netty 1.3.8, Boot 4.1.2's, has the fix (HttpTrafficHandler.run()
 * resumes reading when it drains its queue without a request), and the Boot 4 build runs without
 * this class (tests/test_error_answers.py's pipelined test passes on both).
 * Reactor Netty reads on demand (auto-read off). A request that arrives before the previous
 * request's operations have terminated is queued with its trailing LastHttpContent (the same
 * happens to a pipelined request); when those operations terminate, HttpTrafficHandler schedules
 * its run() to drain the queue instead of requesting a read. If the queued request is answered
 * at once on the event loop (here every 404: no handler, or Mono.error), its operations terminate
 * inside run(), which schedules a second run() because the trailing content is still queued; the
 * first run() drains that content, the second finds the queue empty, and neither requests a read.
 * The next request on the connection is never read. A fresh server leaves the previous request
 * unterminated more often (its 200s complete on a Mono.delay thread, and code on that path is
 * still cold), so the first 404 after a 200 hung.
 *
 * <p>The fix here: a handler right after HttpTrafficHandler requests a read whenever a request's
 * operations terminate (HttpServerOperationsTerminatedEvent, which HttpTrafficHandler passes
 * on), as HttpTrafficHandler itself does when nothing is queued. A read requested while requests
 * are queued only lets Netty read the next bytes sooner; HttpTrafficHandler queues what it reads
 * while a request is in flight. When nothing is queued the read is already pending and the
 * second request costs no system call.
 */
@Component
public class KeepAliveReadWorkaround implements NettyServerCustomizer {
    static final String HANDLER_NAME = "concbench.keepAliveRead";
    /** Package-private in Reactor Netty (since 1.2.18), so matched by name. */
    static final String TERMINATED_EVENT = "reactor.netty.http.server.HttpServerOperationsTerminatedEvent";

    private final ChannelHandler handler;

    /** Fails start-up if the event class is gone: the workaround would then do nothing. */
    public KeepAliveReadWorkaround() {
        try {
            handler = new ReadOnTermination(Class.forName(TERMINATED_EVENT, false, HttpServer.class.getClassLoader()));
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(TERMINATED_EVENT + " not found: this Reactor Netty is not the 1.2.18 "
                    + "KeepAliveReadWorkaround was written for; check whether reactor-netty#4361 is fixed in it", e);
        }
    }

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, remoteAddress) -> {
            // HTTP/1.1 only (Boot's default here): HttpTrafficHandler is in every connection's pipeline
            if (channel.pipeline().get(NettyPipeline.HttpTrafficHandler) != null) {
                channel.pipeline().addAfter(NettyPipeline.HttpTrafficHandler, HANDLER_NAME, handler);
            }
        });
    }

    /** Requests a read when a request's operations have terminated; stateless, one for all channels. */
    @ChannelHandler.Sharable
    static final class ReadOnTermination extends ChannelInboundHandlerAdapter {
        private final Class<?> terminatedEvent;

        ReadOnTermination(Class<?> terminatedEvent) {
            this.terminatedEvent = terminatedEvent;
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt.getClass() == terminatedEvent && ctx.channel().isActive()) {
                ctx.read();
            }
            ctx.fireUserEventTriggered(evt);
        }
    }
}
