package concbench.spring.mvc;

import concbench.spring.ReadyInfo;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.util.ServerInfo;
import org.apache.coyote.AbstractProtocol;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.springframework.context.ApplicationContext;
import org.springframework.stereotype.Component;

/** What Tomcat's connector actually runs with (read from the started connector). */
@Component
public class TomcatInfo implements ReadyInfo {
    private final ApplicationContext ctx;

    public TomcatInfo(ApplicationContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void contribute(Map<String, Object> runtime) {
        runtime.put("server", "tomcat");
        runtime.put("tomcat", ServerInfo.getServerNumber());
        Connector connector = BootWeb.connector(ctx);
        AbstractProtocol<?> protocol = (AbstractProtocol<?>) connector.getProtocolHandler();
        Executor executor = protocol.getExecutor();
        Object threads;
        if (executor instanceof org.apache.tomcat.util.threads.ThreadPoolExecutor tpe) {
            threads = Map.of("min_spare", tpe.getCorePoolSize(), "max", tpe.getMaximumPoolSize());
        } else {
            threads = executor.getClass().getSimpleName(); // e.g. VirtualThreadExecutor
        }
        runtime.put("threads", threads);
        runtime.put("max_connections", protocol.getMaxConnections());
        runtime.put("accept_count", protocol.getAcceptCount());
        if (protocol instanceof AbstractHttp11Protocol<?> http11) {
            runtime.put("max_keep_alive_requests", http11.getMaxKeepAliveRequests());
        }
    }
}
