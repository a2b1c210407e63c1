package concbench.spring.mvc;

import concbench.spring.ReadyInfo;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.catalina.connector.Connector;
import org.apache.coyote.AbstractProtocol;
import org.apache.coyote.http11.AbstractHttp11Protocol;
import org.springframework.boot.web.embedded.tomcat.TomcatWebServer;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.stereotype.Component;

/** What Tomcat's connector actually runs with (read from the started connector). */
@Component
public class TomcatInfo implements ReadyInfo {
    private final ServletWebServerApplicationContext ctx;

    public TomcatInfo(ServletWebServerApplicationContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void contribute(Map<String, Object> runtime) {
        runtime.put("server", "tomcat");
        Connector connector = ((TomcatWebServer) ctx.getWebServer()).getTomcat().getConnector();
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
