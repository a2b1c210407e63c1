package concbench.spring.webflux;

import concbench.spring.ReadyInfo;
import java.util.Map;
import org.springframework.context.ApplicationContext;
import org.springframework.stereotype.Component;
import reactor.core.scheduler.Schedulers;
import reactor.netty.ReactorNetty;
import reactor.netty.resources.LoopResources;

/** Reactor Netty's and Netty's versions and Reactor Netty's and Reactor's thread counts (event loops: see EventLoopSizing). */
@Component
public class NettyInfo implements ReadyInfo {
    private final ApplicationContext ctx;

    public NettyInfo(ApplicationContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void contribute(Map<String, Object> runtime) {
        runtime.put("server", "netty");
        runtime.put("reactor_netty", reactor.netty.http.server.HttpServer.class.getPackage().getImplementationVersion());
        runtime.put("netty", io.netty.channel.Channel.class.getPackage().getImplementationVersion());
        // reactor-netty#4361's workaround: a bean of the Boot 3.5 build only (src/boot3/java)
        runtime.put("keep_alive_read_workaround", ctx.containsBean("keepAliveReadWorkaround"));
        runtime.put("threads", Map.of(
                "event_loops", LoopResources.DEFAULT_IO_WORKER_COUNT,
                "event_loops_sizing", EventLoopSizing.choice(),
                "parallel_scheduler", Schedulers.DEFAULT_POOL_SIZE,
                "transport", LoopResources.hasNativeSupport()
                        && Boolean.parseBoolean(System.getProperty(ReactorNetty.NATIVE, "true"))
                        ? "epoll (native)" : "nio"));
        // set explicitly in the manifest's run (--sun-misc-unsafe-memory-access=allow,
        // --enable-native-access=ALL-UNNAMED), read back here as observed: whether Netty uses
        // sun.misc.Unsafe for its buffers, and whether its native epoll transport may load
        runtime.put("netty_unsafe", io.netty.util.internal.PlatformDependent.hasUnsafe());
        runtime.put("native_access", NettyInfo.class.getModule().isNativeAccessEnabled());
    }
}
